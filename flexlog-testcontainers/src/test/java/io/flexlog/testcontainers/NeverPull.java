package io.flexlog.testcontainers;

import org.testcontainers.images.ImagePullPolicy;
import org.testcontainers.utility.DockerImageName;

/**
 * The image pull policy of the container tests (TESTCONTAINERS_PULL_POLICY in the failsafe
 * configuration): never pull. Every image they run is built on this machine, and no registry of
 * images is reachable from it.
 */
public final class NeverPull implements ImagePullPolicy {
  @Override
  public boolean shouldPull(DockerImageName imageName) {
    return false;
  }
}
