package io.flexlog.server.control;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The cluster metadata file exists but cannot be trusted (bad magic, unknown format, torn or
 * altered bytes, an inconsistent topology). A node refuses to start on it rather than fall back to
 * the cluster file, which would silently forget colors created since.
 */
public final class CorruptMetadataException extends IOException {
  private static final long serialVersionUID = 1L;

  public CorruptMetadataException(Path file, String problem) {
    super(
        "corrupt cluster metadata file "
            + file
            + ": "
            + problem
            + "; refusing to start (restore the file from another node's data directory or a"
            + " backup)");
  }
}
