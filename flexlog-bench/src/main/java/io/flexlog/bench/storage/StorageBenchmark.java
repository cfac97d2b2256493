package io.flexlog.bench.storage;

import io.flexlog.bench.report.Directories;
import io.flexlog.replica.storage.DurabilityMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Paper Fig. 5–7 as a JMH benchmark: operations per second of FlexLog's replica storage ({@code
 * llpl}, {@code mapped}, and {@code tiered}: the replica's engine with its off-heap cache in front
 * of the PM engine {@code auto} picks and SSD segments behind, {@code cacheMiB} and {@code pmMiB}
 * per thread, reads through {@code retainedPayload} as a replica serves them) and RocksDB (Boki's
 * engine and options, WAL on) by record size, threads ({@code -t}) and read share. One operation is
 * a {@link Workload#step()}: an append (FlexLog: {@code appendPending + commit + flush}; RocksDB:
 * one {@code put}), durable per the durability mode before the next, or a read of a record written
 * earlier, chosen uniformly (FlexLog: index lookup + copy of the payload into a byte[]; RocksDB:
 * {@code get} into a byte[]).
 *
 * <p>Equal durability: {@code process} is FlexLog's flush into a shared mapping against RocksDB
 * {@code sync=false}; {@code fsync} is an msync per append against {@code sync=true}. llpl reads
 * {@code PMEM_IS_PMEM_FORCE} once per process, so run {@code process} with it set to 1 and {@code
 * fsync} with it unset, in separate JMH runs (the forks inherit the environment).
 *
 * <p>Threads: every JMH thread has its own FlexLog log (a log has one owner thread, as a replica
 * runs its log on its event loop) and, alike, its own RocksDB database.
 *
 * <p>Lifetimes: both engines are treated alike, every iteration starts on a fresh store. FlexLog's
 * logs have a fixed capacity and reuse space only after a trim, which the benchmark never does, so
 * each iteration gets fresh logs of {@code logMiB} each, and RocksDB gets fresh databases (its
 * memtable flushes and compactions within an iteration count; the databases' growth over a long run
 * does not, as FlexLog's trims do not). A log that fills up within an iteration fails the run
 * rather than pausing the clock: raise {@code -p logMiB} or shorten {@code -r}. Reads pick among
 * every record of the iteration's store on both engines, so both read over equal key ranges. Every
 * new log or database is preloaded with the command line's number of records per thread. Data goes
 * to {@code -Dflexlog.bench.dir} (default the system temporary directory) and is deleted
 * afterwards.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 200, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 10, time = 200, timeUnit = TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Dflexlog.log.level=WARN")
public class StorageBenchmark {
  static final String ROCKSDB = "rocksdb";

  @Param({"llpl", "mapped", EngineChoice.TIERED, ROCKSDB})
  public String engine;

  @Param({"process"})
  public String durability;

  @Param({"1024"})
  public int recordBytes;

  @Param({"0"})
  public int readPercent;

  /**
   * Capacity of each FlexLog thread's log, created afresh every iteration; for {@code tiered} the
   * records it keeps over cache, PM and SSD.
   */
  @Param({"1024"})
  public int logMiB;

  /** {@code tiered} only: each thread's PM log; above 75 % of it chunks move to SSD segments. */
  @Param({"256"})
  public int pmMiB;

  /** {@code tiered} only: each thread's off-heap cache. */
  @Param({"256"})
  public int cacheMiB;

  private RecordPattern pattern;
  private DurabilityMode mode;
  private Path root;
  private Path dir;
  private Thread cleanup;
  private RecordStore store;
  private RecordLog[] logs;
  // Bumped whenever a new store is opened, so that threads know to open new logs on it.
  private volatile int generation;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    pattern = new RecordPattern(recordBytes);
    mode = DurabilityMode.parse(durability);
    Path base =
        Path.of(System.getProperty("flexlog.bench.dir", System.getProperty("java.io.tmpdir")));
    root = Files.createTempDirectory(base, "flexlog-jmh-storage-");
    // A failing benchmark skips its tear-down; the fork's exit still removes the data.
    cleanup = new Thread(() -> Directories.deleteRecursively(root), "flexlog-jmh-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
  }

  /**
   * Opens the store and every thread's log, preloaded, before any thread starts the iteration: a
   * thread that finished its own set-up early would otherwise run unmeasured operations (JMH's
   * synchronised start) while the others still create their logs, and could fill its log.
   */
  @Setup(Level.Iteration)
  public void openStore(BenchmarkParams params) throws IOException {
    dir = Files.createTempDirectory(root, "store-");
    long logBytes = (long) logMiB << 20;
    if (ROCKSDB.equals(engine)) {
      store = new RocksDbStore(dir, mode, pattern);
    } else if (EngineChoice.TIERED.equals(engine)) {
      TieredOptions tiers = new TieredOptions((long) pmMiB << 20, (long) cacheMiB << 20);
      String pmEngine = EngineChoice.resolveHere(EngineChoice.TIERED, mode).engine();
      store =
          new FlexLogStore(
              pmEngine, dir, logBytes, tiers.chunkBytes(), mode, Optional.of(tiers), pattern);
    } else {
      store =
          new FlexLogStore(
              engine,
              dir,
              logBytes,
              StorageSettings.chunkBytes(logBytes),
              mode,
              Optional.empty(),
              pattern);
    }
    logs = new RecordLog[params.getThreads()];
    int preload = StorageSettings.preloadRecords(logBytes, recordBytes);
    // Opened and preloaded in parallel (creating a log takes seconds), then owned by JMH thread t;
    // the end of the parallel stream and JMH's iteration start order the hand-over.
    IntStream.range(0, logs.length)
        .parallel()
        .forEach(
            t -> {
              logs[t] = store.openLog(t);
              logs[t].preload(preload);
            });
    generation++;
  }

  @TearDown(Level.Iteration)
  public void endIteration() {
    closeStore(); // every engine starts each iteration on a fresh store
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    closeStore();
    Directories.deleteRecursively(root);
    Runtime.getRuntime().removeShutdownHook(cleanup);
  }

  private void closeStore() {
    if (store != null) {
      store.close();
      store = null;
      logs = null;
      Directories.deleteRecursively(dir);
    }
  }

  /** One JMH thread's log and operation mix on the current store. */
  @State(Scope.Thread)
  public static class ThreadLog {
    RecordLog log;
    Workload workload;
    int thread;
    int generation;
    int logMiB;

    @Setup(Level.Iteration)
    public void open(StorageBenchmark bench, ThreadParams threads) {
      if (log != null && generation == bench.generation) {
        return; // same store as the last iteration: keep writing and reading this thread's log
      }
      thread = threads.getThreadIndex();
      generation = bench.generation;
      logMiB = bench.logMiB;
      log = bench.logs[thread];
      workload =
          new Workload(log, bench.pattern, thread, bench.readPercent, 0x9E37_79B9L * (thread + 1));
    }
  }

  @Benchmark
  public Operation operation(ThreadLog t) {
    Operation op = t.workload.step();
    if (op == Operation.LOG_FULL) {
      throw new IllegalStateException(
          "thread "
              + t.thread
              + "'s FlexLog log of "
              + t.logMiB
              + " MiB filled up within one iteration after "
              + t.log.written()
              + " records: raise -p logMiB or shorten the iterations (-r)");
    }
    return op;
  }
}
