package io.flexlog.bench.report;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes benchmark data directories. */
public final class Directories {
  private Directories() {}

  /** Deletes {@code dir} and everything under it; nothing happens if it does not exist. */
  public static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Deletes a run's temporary directory; a failure is reported on {@code err}, not thrown. */
  public static void deleteOrWarn(Path dir, PrintWriter err) {
    try {
      deleteRecursively(dir);
    } catch (UncheckedIOException e) {
      err.println("cannot delete the temporary directory " + dir + ": " + e.getMessage());
    }
  }
}
