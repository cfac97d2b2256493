package io.flexlog.bench.cli;

import io.flexlog.bench.storage.EngineChoice;
import io.flexlog.bench.storage.RecordPattern;
import io.flexlog.bench.storage.StorageComparison;
import io.flexlog.bench.storage.StorageSettings;
import io.flexlog.bench.storage.TieredOptions;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import io.flexlog.server.config.DataSize;
import io.netty.util.internal.PlatformDependent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code flexlog bench storage}: parses and validates the arguments, then hands {@link
 * StorageSettings} to the comparison. A bad argument is a {@link ParameterException}, which picocli
 * prints with the usage and turns into exit code 2.
 */
@Command(
    name = "storage",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "FlexLog's replica storage engine against RocksDB (the engine Boki uses), one after the other"
          + " in this process with the same workload and equal durability. Each thread appends"
          + " records (one durable append per operation) and reads records written so far. Prints"
          + " both throughputs and latency percentiles; the last line is"
          + " 'ratio flexlog/rocksdb = X' (operations per second).",
      "Threads: FlexLog runs one log per thread (a log has one owner thread, as a replica's event"
          + " loop); RocksDB runs one database per thread.",
      "Exit codes: 0 done, 1 the run failed (an engine error, a record read back wrong),"
          + " 2 bad arguments."
    })
public final class StorageCommand extends BenchmarkCommand<StorageSettings> {
  /** Resolves {@code --engine} for this process; tests pass a fixed environment. */
  @FunctionalInterface
  public interface EngineResolver {
    EngineChoice resolve(String requested, DurabilityMode mode);
  }

  static final int MAX_THREADS = 64;
  static final int MAX_RECORD_BYTES = 1 << 20;
  static final long MIN_LOG_BYTES = 64L << 20;
  static final long MIN_PM_BYTES = 16L << 20;
  static final String PM_BYTES = "--pm-bytes";
  static final String CACHE_BYTES = "--cache-bytes";

  @Option(
      names = "--record-bytes",
      paramLabel = "B",
      required = true,
      description =
          "Bytes per record ("
              + RecordPattern.MIN_RECORD_BYTES
              + ".."
              + MAX_RECORD_BYTES
              + "): the record's key, then fixed pseudo-random bytes.")
  private int recordBytes;

  @Option(
      names = "--threads",
      paramLabel = "T",
      required = true,
      description = "Benchmark threads per engine (1.." + MAX_THREADS + ").")
  private int threads;

  @Option(
      names = "--read-percent",
      paramLabel = "R",
      required = true,
      description =
          "Share of operations that read a record chosen uniformly among those written so far"
              + " (0..100); the others append.")
  private int readPercent;

  @Option(
      names = "--durability",
      paramLabel = "MODE",
      required = true,
      description =
          "process (FlexLog flush into a shared mapping vs RocksDB WAL without sync), fsync"
              + " (msync vs WAL sync=true) or pmem (llpl on a DAX mount vs sync=true).")
  private String durability;

  @Option(
      names = "--engine",
      paramLabel = "ENGINE",
      defaultValue = EngineChoice.AUTO,
      description =
          "FlexLog engine: llpl, mapped, auto (llpl where it can honour the durability mode), or"
              + " tiered (the replica's engine: off-heap cache, the PM engine auto picks, SSD"
              + " segments; reads through the cache as a replica serves them)"
              + " (default: ${DEFAULT-VALUE}).")
  private String engine;

  @Option(
      names = "--duration",
      paramLabel = "D",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Measured time per engine, e.g. 500ms, 10s, 2m (default: ${DEFAULT-VALUE}).")
  private Duration duration;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description = "Unmeasured time per engine before measuring (default: ${DEFAULT-VALUE}).")
  private Duration warmup;

  @Mixin private JsonFileOption json;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description =
          "Where the temporary data directory goes; it is deleted afterwards (default: the"
              + " system temporary directory).")
  private Path dataDir;

  @Option(
      names = "--log-bytes",
      paramLabel = "SIZE",
      defaultValue = "1GiB",
      description =
          "Capacity of each FlexLog thread's log (tiered: the records it keeps over cache, PM"
              + " and SSD); a full log trims its oldest half with the clock running"
              + " (default: ${DEFAULT-VALUE}).")
  private String logBytes;

  @Option(
      names = PM_BYTES,
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      description =
          "With --engine tiered: each thread's PM log; above 75 %% of it the oldest chunks move to"
              + " SSD segments (default: ${DEFAULT-VALUE}).")
  private String pmBytes;

  @Option(
      names = CACHE_BYTES,
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      description =
          "With --engine tiered: each thread's off-heap cache, 0 for none"
              + " (default: ${DEFAULT-VALUE}).")
  private String cacheBytes;

  private final EngineResolver resolver;

  /** The command as the launcher runs it. */
  public StorageCommand() {
    this(StorageComparison::run, EngineChoice::resolveHere);
  }

  StorageCommand(Runner<StorageSettings> runner, EngineResolver resolver) {
    super(runner);
    this.resolver = resolver;
  }

  @Override
  protected StorageSettings settings() {
    checkRange("--record-bytes", recordBytes, RecordPattern.MIN_RECORD_BYTES, MAX_RECORD_BYTES);
    checkRange("--threads", threads, 1, MAX_THREADS);
    checkRange("--read-percent", readPercent, 0, 100);
    DurabilityMode mode;
    try {
      mode = DurabilityMode.parse(durability);
    } catch (IllegalArgumentException e) {
      throw bad("--durability: " + e.getMessage());
    }
    checkLongerThanZero("--duration", duration);
    long log = size("--log-bytes", logBytes);
    if (log < MIN_LOG_BYTES) {
      throw bad("--log-bytes must be at least " + DataSize.format(MIN_LOG_BYTES) + ", got " + log);
    }
    long indexBytes = StorageSettings.indexBytes(threads, log, recordBytes);
    long heap = Runtime.getRuntime().maxMemory();
    if (indexBytes > heap / 2) {
      throw bad(
          "--log-bytes "
              + DataSize.format(log)
              + " with --threads "
              + threads
              + " and --record-bytes "
              + recordBytes
              + " needs "
              + (indexBytes >> 20)
              + " MiB of heap for FlexLog's record indexes, more than half the JVM heap ("
              + (heap >> 20)
              + " MiB): lower --log-bytes, or raise -Xmx through FLEXLOG_JAVA_OPTS");
    }
    Path data = dataDir != null ? dataDir : Path.of(System.getProperty("java.io.tmpdir"));
    if (!Files.isDirectory(data) || !Files.isWritable(data)) {
      throw bad("--data-dir " + data + " is not a writable directory");
    }
    Optional<Path> jsonFile = json.file();
    EngineChoice choice;
    try {
      choice = resolver.resolve(engine, mode);
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
    Optional<TieredOptions> tiered =
        choice.tiered() ? Optional.of(tieredOptions(data)) : Optional.empty();
    if (!choice.tiered()) {
      for (String option : new String[] {PM_BYTES, CACHE_BYTES}) {
        if (spec().commandLine().getParseResult().hasMatchedOption(option)) {
          throw bad(option + " applies to --engine tiered only, not --engine " + engine);
        }
      }
    }
    return new StorageSettings(
        recordBytes,
        threads,
        readPercent,
        mode,
        choice.engine(),
        choice.notice(),
        duration,
        warmup,
        data,
        log,
        tiered,
        jsonFile);
  }

  private TieredOptions tieredOptions(Path data) {
    long pm = size(PM_BYTES, pmBytes);
    long cache = size(CACHE_BYTES, cacheBytes);
    if (pm < MIN_PM_BYTES) {
      throw bad(PM_BYTES + " must be at least " + DataSize.format(MIN_PM_BYTES) + ", got " + pm);
    }
    TieredOptions options = new TieredOptions(pm, cache);
    try {
      options.config(data); // the engine's own checks of the cache budget
    } catch (InvalidArgumentException e) {
      throw bad(
          CACHE_BYTES
              + " must be 0 or at least "
              + DataSize.format(TieredStorageConfig.MIN_CACHE_BYTES)
              + ", got "
              + cache);
    }
    long direct = PlatformDependent.maxDirectMemory();
    if ((double) cache * threads > direct / 2.0) {
      throw bad(
          CACHE_BYTES
              + " "
              + DataSize.format(cache)
              + " with --threads "
              + threads
              + " needs "
              + ((cache * threads) >> 20)
              + " MiB of direct memory for the caches, more than half the JVM's limit ("
              + (direct >> 20)
              + " MiB): lower "
              + CACHE_BYTES
              + ", or raise -Xmx or -XX:MaxDirectMemorySize through FLEXLOG_JAVA_OPTS");
    }
    return options;
  }
}
