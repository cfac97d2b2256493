package io.flexlog.bench.storage;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import org.HdrHistogram.Histogram;

/**
 * Runs one {@link RecordStore} with a number of threads, each on its own {@link RecordLog}: preload
 * (not measured), warm-up for a wall-clock time, measurement, then a read-back of a sample of
 * records. Every operation is timed on its own ({@link System#nanoTime()} before and after, the
 * same for every engine) into a per-thread histogram; the histograms are merged at the end.
 *
 * <p>Measurement: each thread measures for the planned wall-clock duration, every second counted,
 * the time spent making room in a full log included (FlexLog's logs have a fixed capacity: a full
 * one trims its oldest half, as RocksDB's flushes and compactions are part of its time); the number
 * and time of those trims are reported beside the rates. A thread that is done keeps running
 * unmeasured until every thread is done, so the others see the same contention throughout, as JMH
 * does with synchronised iterations. Reads pick among the last {@link Plan#readWindowRecords}
 * records on every engine, so that both read over equal key ranges.
 *
 * <p>Threading: {@link #run} is called by one controlling thread, which starts the workers, moves
 * them through the phases with a volatile phase word, prints progress and joins them.
 */
public final class StorageLoad {
  /** Latencies above this are recorded as this (a stalled disk, not a storage operation). */
  static final long MAX_RECORDED_NANOS = Duration.ofMinutes(1).toNanos();

  private static final int PREPARING = 0;
  private static final int WARMUP = 1;
  private static final int MEASURE = 2;
  private static final int STOP = 3;

  private final Plan plan;
  private final RecordPattern pattern;
  private final PrintWriter progress;
  private final CountDownLatch finished;
  private volatile int phase = PREPARING;

  /**
   * How to run one engine.
   *
   * @param duration measured wall-clock time per thread, trims of a full log included
   * @param preloadRecords records each thread appends before the warm-up, in batches
   * @param verifyRecords records each thread reads back and compares after the measurement
   * @param progressInterval time between progress lines
   * @param readWindowRecords reads pick among this many of the newest records, the same on every
   *     engine (at most what FlexLog's log still holds right after a trim)
   */
  public record Plan(
      int threads,
      int readPercent,
      Duration warmup,
      Duration duration,
      int preloadRecords,
      int verifyRecords,
      Duration progressInterval,
      long readWindowRecords) {
    /** A plan whose reads pick among every record written. */
    public Plan(
        int threads,
        int readPercent,
        Duration warmup,
        Duration duration,
        int preloadRecords,
        int verifyRecords,
        Duration progressInterval) {
      this(
          threads,
          readPercent,
          warmup,
          duration,
          preloadRecords,
          verifyRecords,
          progressInterval,
          Long.MAX_VALUE);
    }

    public Plan {
      if (readWindowRecords < 1) {
        throw new IllegalArgumentException("bad plan: read window " + readWindowRecords);
      }
      if (threads < 1 || readPercent < 0 || readPercent > 100 || preloadRecords < 0) {
        throw new IllegalArgumentException(
            "bad plan: threads " + threads + ", read percent " + readPercent);
      }
      if (warmup.isNegative() || duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException(
            "bad plan: warm-up " + warmup + ", duration " + duration);
      }
    }
  }

  private StorageLoad(Plan plan, RecordPattern pattern, PrintWriter progress) {
    this.plan = plan;
    this.pattern = pattern;
    this.progress = progress;
    this.finished = new CountDownLatch(plan.threads());
  }

  /**
   * Runs the plan against {@code store} and returns what was measured. The store stays open; the
   * caller closes it.
   *
   * @throws io.flexlog.replica.storage.StorageException or {@link IllegalStateException} when a
   *     worker failed (an engine error, a record read back wrong); the first failure is thrown
   */
  public static EngineResult run(
      RecordStore store, Plan plan, RecordPattern pattern, PrintWriter progress)
      throws InterruptedException {
    return new StorageLoad(plan, pattern, progress).execute(store);
  }

  private EngineResult execute(RecordStore store) throws InterruptedException {
    CountDownLatch ready = new CountDownLatch(plan.threads());
    CountDownLatch go = new CountDownLatch(1);
    List<Worker> workers = new ArrayList<>(plan.threads());
    List<Thread> threads = new ArrayList<>(plan.threads());
    for (int t = 0; t < plan.threads(); t++) {
      Worker worker = new Worker(store, t, ready, go);
      workers.add(worker);
      threads.add(new Thread(worker, "bench-" + store.name() + "-" + t));
    }
    say(store, "preloading " + plan.preloadRecords() + " records per thread");
    threads.forEach(Thread::start);
    try {
      ready.await();
      if (firstFailure(workers) == null) {
        drive(store, workers, go);
      }
    } finally {
      phase = STOP;
      go.countDown();
      for (Thread thread : threads) {
        thread.join();
      }
    }
    Throwable failure = firstFailure(workers);
    if (failure != null) {
      throw asUnchecked(failure);
    }
    return summarize(store, workers);
  }

  private void drive(RecordStore store, List<Worker> workers, CountDownLatch go)
      throws InterruptedException {
    if (!plan.warmup().isZero()) {
      say(store, "warm-up for " + seconds(plan.warmup()) + " s");
      phase = WARMUP;
      go.countDown();
      long end = System.nanoTime() + plan.warmup().toNanos();
      if (!watch(store, workers, "warm-up", now -> now >= end)) {
        return;
      }
    }
    say(store, "measuring " + seconds(plan.duration()) + " s per thread");
    phase = MEASURE;
    go.countDown();
    if (watch(store, workers, "measuring", now -> finished.getCount() == 0)) {
      say(store, "done; reading back up to " + plan.verifyRecords() + " records per thread");
    }
    phase = STOP;
  }

  /**
   * Waits until {@code done} holds for the current time, printing progress; false if a worker
   * failed meanwhile.
   */
  private boolean watch(RecordStore store, List<Worker> workers, String label, LongPredicate done)
      throws InterruptedException {
    long start = System.nanoTime();
    long interval = plan.progressInterval().toNanos();
    long nextReport = start + interval;
    long lastNs = start;
    long lastOps = completed(workers);
    while (true) {
      long now = System.nanoTime();
      if (firstFailure(workers) != null) {
        return false;
      }
      if (done.test(now)) {
        return true;
      }
      if (now >= nextReport) {
        long ops = completed(workers);
        double rate = (ops - lastOps) / ((now - lastNs) / 1e9);
        say(
            store,
            String.format(
                Locale.ROOT, "%-9s %6.1f s  %,14.0f ops/s", label, (now - start) / 1e9, rate));
        lastOps = ops;
        lastNs = now;
        nextReport += interval;
      }
      Thread.sleep(Math.max(1, Math.min(50, (nextReport - now) / 1_000_000)));
    }
  }

  private void say(RecordStore store, String message) {
    progress.println("[bench] " + store.name() + ": " + message);
    progress.flush();
  }

  private static long completed(List<Worker> workers) {
    long sum = 0;
    for (Worker worker : workers) {
      sum += worker.completed.get();
    }
    return sum;
  }

  private static Throwable firstFailure(List<Worker> workers) {
    for (Worker worker : workers) {
      if (worker.failure != null) {
        return worker.failure;
      }
    }
    return null;
  }

  private EngineResult summarize(RecordStore store, List<Worker> workers) {
    Histogram appends = newHistogram();
    Histogram reads = newHistogram();
    long appendCount = 0;
    long readCount = 0;
    double appendRate = 0;
    double readRate = 0;
    double measured = 0;
    long trims = 0;
    long trimNs = 0;
    long verified = 0;
    Optional<TierStats> tiers = Optional.empty();
    for (Worker w : workers) {
      appends.add(w.appendNanos);
      reads.add(w.readNanos);
      double seconds = w.activeNs() / 1e9;
      if (seconds > 0) {
        appendRate += w.appends / seconds;
        readRate += w.reads / seconds;
      }
      appendCount += w.appends;
      readCount += w.reads;
      measured = Math.max(measured, seconds);
      trims += w.trims;
      trimNs += w.trimNs;
      verified += w.verified;
      if (w.tierStats != null) {
        tiers = Optional.of(tiers.orElse(TierStats.ZERO).plus(w.tierStats));
      }
    }
    return new EngineResult(
        store.name(),
        store.description(),
        measured,
        appendCount,
        readCount,
        appendRate,
        readRate,
        LatencySummary.of(appends),
        LatencySummary.of(reads),
        trims,
        trimNs / 1e9,
        verified,
        tiers);
  }

  static Histogram newHistogram() {
    return new Histogram(MAX_RECORDED_NANOS, 3);
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f", d.toNanos() / 1e9);
  }

  private static RuntimeException asUnchecked(Throwable t) {
    if (t instanceof RuntimeException e) {
      return e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }

  /** One benchmark thread: owns its log, its histograms and its counters. */
  private final class Worker implements Runnable {
    private final RecordStore store;
    private final int thread;
    private final CountDownLatch ready;
    private final CountDownLatch go;
    final Histogram appendNanos = newHistogram();
    final Histogram readNanos = newHistogram();
    // Operations since the start, warm-up included: the controller reads it for progress only.
    final AtomicLong completed = new AtomicLong();
    volatile Throwable failure;
    // Measured phase only; read by the controller after join.
    boolean measured;
    long appends;
    long reads;
    long startNs;
    long endNs;
    long trims;
    long trimNs;
    long verified;
    // The tiered engine's counters over the measured phase; null for other engines.
    TierStats tierStats;
    private TierStats tierStart;

    Worker(RecordStore store, int thread, CountDownLatch ready, CountDownLatch go) {
      this.store = store;
      this.thread = thread;
      this.ready = ready;
      this.go = go;
    }

    /** The thread's measured wall-clock time, trims included; 0 if it never finished measuring. */
    long activeNs() {
      return measured ? endNs - startNs : 0;
    }

    @Override
    public void run() {
      boolean readied = false;
      try (RecordLog log = store.openLog(thread)) {
        log.preload(plan.preloadRecords());
        ready.countDown();
        readied = true;
        go.await();
        Workload workload =
            new Workload(
                log,
                pattern,
                thread,
                plan.readPercent(),
                0x9E37_79B9L * (thread + 1),
                plan.readWindowRecords());
        loop(log, workload);
        verified = workload.verify(plan.verifyRecords());
      } catch (Throwable t) {
        failure = t;
      } finally {
        if (!readied) {
          ready.countDown();
        }
        if (!measured) {
          finished.countDown();
        }
      }
    }

    private void loop(RecordLog log, Workload workload) {
      long durationNs = plan.duration().toNanos();
      int seen = PREPARING;
      boolean measuring = false;
      long ops = 0;
      while (true) {
        int now = phase;
        if (now != seen) {
          seen = now;
          if (now == STOP) {
            return;
          }
          if (now == MEASURE) {
            measuring = true;
            tierStart = log.tierStats().orElse(null);
            startNs = System.nanoTime();
          }
        }
        long start = System.nanoTime();
        Operation op = workload.step();
        long end = System.nanoTime();
        if (op == Operation.LOG_FULL) {
          // Not an operation, but its time counts: the clock runs on while the log trims.
          log.makeRoom();
          if (measuring) {
            trims++;
            trimNs += System.nanoTime() - end;
          }
          continue;
        }
        // A release store: no fence on the hot path, visible to the controller soon enough.
        completed.lazySet(++ops);
        if (measuring) {
          long latency = Math.min(end - start, MAX_RECORDED_NANOS);
          if (op == Operation.APPEND) {
            appendNanos.recordValue(latency);
            appends++;
          } else {
            readNanos.recordValue(latency);
            reads++;
          }
          if (end - startNs >= durationNs) {
            endNs = end;
            measuring = false;
            if (tierStart != null) {
              tierStats = log.tierStats().orElseThrow().since(tierStart);
            }
            measured = true;
            finished.countDown();
          }
        }
      }
    }
  }
}
