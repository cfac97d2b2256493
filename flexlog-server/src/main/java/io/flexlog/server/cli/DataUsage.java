package io.flexlog.server.cli;

import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.config.DataSize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The line {@code dev} prints about its data directory (docs/operations.md, "A local cluster in one
 * process"): where it writes, how much the directory holds now (file sizes, and the disk space they
 * take: the mapped engine's chunk files are sparse), and how much the replicas' logs take by design
 * with the engine in use.
 */
final class DataUsage {
  private DataUsage() {}

  /**
   * @param replicas the replica nodes writing under {@code data}
   * @param pmBytes each replica's PM log size ({@code --pm-bytes})
   * @param engine the storage engine the replicas use ({@code llpl} or {@code mapped})
   */
  static String describe(Path data, int replicas, long pmBytes, String engine) {
    long onDisk = DiskUsage.allocatedUnder(data);
    String logs =
        replicas + " x " + DataSize.format(pmBytes) + " = " + DataSize.format(replicas * pmBytes);
    return "data: "
        + data.toAbsolutePath().normalize()
        + " holds "
        + approx(bytesUnder(data))
        + " in files"
        + (onDisk < 0 ? "" : ", " + approx(onDisk) + " on disk")
        + " now; the "
        + replicas
        + (StorageEngines.MAPPED.equals(engine)
            ? " replica logs take up to "
                + logs
                + " (mapped engine: sparse chunk files, disk space is taken as chunks are first"
                + " written)"
            : " replica logs take "
                + logs
                + " on disk from the first start (llpl engine: the heap file is created at its"
                + " full size, with every chunk allocated up front)")
        + ", SSD segments under <data>/replica-N/segments grow beyond that until trimmed or"
        + " expired by retention; --data DIR writes elsewhere, --pm-bytes sizes the logs";
  }

  /** {@code bytes} to one decimal in the largest binary unit below it, e.g. {@code 768.0MiB}. */
  static String approx(long bytes) {
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
      return bytes + "B";
    }
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f%s", value, units[unit]);
  }

  /** The total size of the regular files under {@code dir}; 0 if it does not exist. */
  static long bytesUnder(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(DataUsage::size).sum();
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot measure data directory " + dir, e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0; // removed meanwhile (a temporary file)
    }
  }
}
