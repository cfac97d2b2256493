package io.flexlog.server.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The disk space a directory takes, as {@code du -sk} counts it (allocated blocks, so a sparse file
 * counts only what was written). Java has no portable way to read a file's allocated blocks, so
 * this asks {@code du}; where it is missing or fails, the answer is unknown.
 */
final class DiskUsage {
  private static final long TIMEOUT_MS = 5000;

  private DiskUsage() {}

  /** Bytes allocated under {@code dir}, 0 if it does not exist, -1 if unknown. */
  static long allocatedUnder(Path dir) {
    if (!Files.exists(dir)) {
      return 0;
    }
    Process du;
    try {
      du =
          new ProcessBuilder("du", "-sk", dir.toAbsolutePath().toString())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
    } catch (IOException e) {
      return -1;
    }
    try (InputStream out = du.getInputStream()) {
      if (!du.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS) || du.exitValue() != 0) {
        return -1;
      }
      String line = new String(out.readAllBytes(), StandardCharsets.UTF_8).trim();
      int tab = line.indexOf('\t');
      return Long.parseLong(tab < 0 ? line : line.substring(0, tab)) * 1024;
    } catch (IOException | NumberFormatException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } finally {
      du.destroy();
    }
  }
}
