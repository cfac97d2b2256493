package io.flexlog.testcontainers;

import com.github.dockerjava.api.exception.NotFoundException;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Enables a {@link DockerTest} where Docker runs and the image named by the system property {@code
 * flexlog.image} exists locally (the pre-integration-test step builds it). Otherwise the test is
 * skipped with the reason, or, when {@code flexlog.docker.required} is true, fails with it: a CI
 * run that was meant to run the container tests never passes by skipping them.
 */
public final class DockerAvailable implements ExecutionCondition {
  private static final String REQUIRED = "flexlog.docker.required";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String problem =
        context
            .getRoot()
            .getStore(ExtensionContext.Namespace.create(DockerAvailable.class))
            .getOrComputeIfAbsent("problem", key -> problem(), String.class);
    if (problem.isEmpty()) {
      return ConditionEvaluationResult.enabled("Docker runs and the image " + image() + " exists");
    }
    if (Boolean.getBoolean(REQUIRED)) {
      throw new ExtensionConfigurationException(
          problem + ", and " + REQUIRED + "=true: the container tests must run");
    }
    String reason = "container test skipped: " + problem;
    System.err.println(reason);
    return ConditionEvaluationResult.disabled(reason);
  }

  /** The image the container tests run (built from this build's distribution). */
  public static String image() {
    String image = System.getProperty("flexlog.image");
    return image == null || image.isBlank() ? "" : image;
  }

  /** Why the container tests cannot run, or "" when they can. */
  private static String problem() {
    if (image().isEmpty()) {
      return "the system property flexlog.image is not set (run the container tests with mvn verify)";
    }
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      return "Docker is not available (no reachable Docker daemon)";
    }
    try {
      DockerClientFactory.instance().client().inspectImageCmd(image()).exec();
      return "";
    } catch (NotFoundException e) {
      return "the image "
          + image()
          + " does not exist (the build makes it with docker/build-image.sh; see the"
          + " build-image step's output)";
    }
  }
}
