package io.flexlog.bench.storage;

import io.flexlog.bench.report.Directories;
import io.flexlog.bench.report.ReportOutput;
import io.flexlog.replica.storage.StorageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Runs {@code flexlog bench storage}: the same workload on FlexLog's engine and then on RocksDB in
 * this process, each in its own subdirectory of a temporary directory that is deleted afterwards
 * (also on Ctrl-C), then prints both results and the ratio, and writes the JSON file if asked.
 *
 * <p>Exit codes: {@link #EXIT_OK}, or {@link #EXIT_FAILED} when an engine failed, read a record
 * back wrong, measured no operation, or the JSON file could not be written.
 */
public final class StorageComparison {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;

  private StorageComparison() {}

  public static int run(StorageSettings settings, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    RecordPattern pattern = new RecordPattern(settings.recordBytes());
    out.print(StorageReport.header(settings));
    out.flush();
    Path root;
    try {
      root = Files.createTempDirectory(settings.dataDir(), "flexlog-bench-storage-");
    } catch (IOException e) {
      err.println("cannot create a directory in --data-dir " + settings.dataDir() + ": " + e);
      return EXIT_FAILED;
    }
    err.println("[bench] data in " + root);
    err.flush();
    Thread cleanup = new Thread(() -> deleteQuietly(root), "bench-storage-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      EngineResult flexlog =
          measure(
              settings,
              pattern,
              root.resolve("flexlog"),
              dir ->
                  new FlexLogStore(
                      settings.engine(),
                      dir,
                      settings.logBytes(),
                      settings.chunkBytes(),
                      settings.durability(),
                      settings.tiered(),
                      pattern),
              err);
      EngineResult rocksdb =
          measure(
              settings,
              pattern,
              root.resolve("rocksdb"),
              dir -> new RocksDbStore(dir, settings.durability(), pattern),
              err);
      return report(new ComparisonResult(settings, flexlog, rocksdb), out, err);
    } catch (StorageException | IllegalStateException | UncheckedIOException e) {
      err.println("bench storage failed: " + e.getMessage());
      return EXIT_FAILED;
    } finally {
      deleteQuietly(root);
      removeHook(cleanup);
    }
  }

  private static EngineResult measure(
      StorageSettings settings,
      RecordPattern pattern,
      Path dir,
      Function<Path, RecordStore> open,
      PrintWriter progress)
      throws InterruptedException {
    try (RecordStore store = open.apply(dir)) {
      return StorageLoad.run(store, settings.plan(), pattern, progress);
    } finally {
      // Free the disk and page cache before the next engine runs.
      Directories.deleteRecursively(dir);
    }
  }

  static int report(ComparisonResult result, PrintWriter out, PrintWriter err) {
    int exit = EXIT_OK;
    for (EngineResult engine : new EngineResult[] {result.flexlog(), result.rocksdb()}) {
      if (engine.operations() == 0) {
        err.println(engine.name() + " completed no operation in the measured time");
        return EXIT_FAILED;
      }
    }
    if (!ReportOutput.writeJson(StorageReport.json(result), result.settings().json(), err)) {
      err.flush();
      exit = EXIT_FAILED;
    }
    out.print(StorageReport.text(result));
    out.flush();
    return exit;
  }

  private static void deleteQuietly(Path dir) {
    try {
      Directories.deleteRecursively(dir);
    } catch (UncheckedIOException e) {
      System.err.println("bench storage: " + e.getMessage());
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run: nothing left to undo.
    }
  }
}
