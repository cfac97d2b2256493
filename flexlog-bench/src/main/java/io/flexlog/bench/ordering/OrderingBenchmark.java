package io.flexlog.bench.ordering;

import io.flexlog.bench.report.Directories;
import io.flexlog.bench.report.ReportOutput;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ForkJoinPool;

/**
 * Runs {@code flexlog bench ordering}: each FlexLog placement, then (with {@code --vs ratis}) the
 * Ratis counter, one after the other in this process, never side by side; then prints and writes
 * the report. Every side gets a fresh cluster with its data under one temporary directory, which is
 * deleted at the end.
 */
final class OrderingBenchmark {
  static final int EXIT_OK = ReportOutput.EXIT_OK;
  static final int EXIT_FAILED = ReportOutput.EXIT_FAILED;

  /** Connecting, electing a Ratis leader and the first answer of every client. */
  static final Duration PREPARE_TIMEOUT = Duration.ofSeconds(30);

  /** Answers to the last requests after the stop. */
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);

  /** A start that fails (a picked port taken meanwhile) is retried with new ports. */
  private static final int START_ATTEMPTS = 3;

  private OrderingBenchmark() {}

  static int run(OrderingSettings settings, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    int parallelism = CommonPool.ensureParallelism();
    if (settings.vsRatis() && parallelism < CommonPool.MIN_PARALLELISM) {
      err.println(
          "[bench] warning: the common ForkJoinPool has "
              + parallelism
              + " thread(s), so Ratis starts a thread per async stage; start the JVM with -D"
              + CommonPool.PARALLELISM_PROPERTY
              + "="
              + CommonPool.MIN_PARALLELISM);
    }
    return run(settings, Path.of(System.getProperty("java.io.tmpdir")), out, err);
  }

  /**
   * @param tempParent where the run's temporary directory is created
   */
  static int run(OrderingSettings settings, Path tempParent, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    Path work;
    try {
      work = Files.createTempDirectory(tempParent, "flexlog-bench-ordering-");
    } catch (IOException e) {
      err.println("cannot create a temporary directory under " + tempParent + ": " + e);
      return EXIT_FAILED;
    }
    OrderingReport report;
    try {
      report = measure(settings, work, err);
    } finally {
      Directories.deleteOrWarn(work, err);
    }
    return report(report, out, err);
  }

  static OrderingReport measure(OrderingSettings settings, Path work, PrintWriter err)
      throws InterruptedException {
    List<SideResult> flexlog = new ArrayList<>();
    for (Placement placement : settings.placements()) {
      flexlog.add(
          runFlexLog(settings, placement, work.resolve(placement.cliName()), SnObserver.NONE, err));
    }
    Optional<SideResult> ratis = Optional.empty();
    if (settings.vsRatis()) {
      ratis = Optional.of(runRatis(settings, work.resolve("ratis"), SnObserver.NONE, err));
    }
    return new OrderingReport(settings, ForkJoinPool.getCommonPoolParallelism(), flexlog, ratis);
  }

  /** Prints the report, writes the JSON file and decides the exit code. */
  static int report(OrderingReport report, PrintWriter out, PrintWriter err) {
    return ReportOutput.emit(
        report.text(),
        report.json(),
        report.settings().json(),
        report.allValid(),
        "a side failed or measured nothing valid; see the FAILED/INVALID lines above",
        out,
        err);
  }

  static SideResult runFlexLog(
      OrderingSettings s, Placement placement, Path dir, SnObserver observer, PrintWriter err)
      throws InterruptedException {
    String label = "flexlog " + placement.cliName();
    String description = placement.cliName();
    String lastProblem = "";
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      SequencerTree tree;
      try {
        int[] ports =
            LoopbackPorts.pick(SequencerTree.sequencerNodeCount(s.leaves(), s.height(), placement));
        tree =
            SequencerTree.build(s.leaves(), s.height(), s.clients(), placement, s.color(), ports);
      } catch (IOException e) {
        return SideResult.failed(label, description, "cannot pick ports: " + e);
      }
      description = tree.describe() + "; " + requestedColor(s);
      try (SequencerCluster cluster = SequencerCluster.start(tree, dir.resolve("try-" + attempt))) {
        LoadControl control = new LoadControl(s.clients(), System::nanoTime);
        try (FlexLogOrderingLoad load =
            new FlexLogOrderingLoad(tree, s.outstanding(), s.clientThreads(), control, observer)) {
          return phases(s).run(label, description, load, control, s.clients(), err);
        }
      } catch (IOException e) {
        lastProblem = e.getMessage();
        err.println("[bench] " + label + ": start attempt " + attempt + " failed: " + lastProblem);
      }
    }
    return SideResult.failed(label, description, "cannot start the sequencers: " + lastProblem);
  }

  private static String requestedColor(OrderingSettings s) {
    if (s.leaves() == 0) {
      return "clients ask for global at the root";
    }
    return s.color() == OrderedColor.ROOT
        ? "clients ask for global at the deepest level"
        : "clients ask for their leaf color";
  }

  static SideResult runRatis(OrderingSettings s, Path dir, SnObserver observer, PrintWriter err)
      throws InterruptedException {
    QuietLogging.ratis();
    String label = "ratis counter";
    String description =
        RatisCounterCluster.PEERS
            + " Apache Ratis peers over gRPC on loopback, "
            + s.ratisLog().cliName()
            + " log, "
            + (s.ratisRequests() == RatisRequests.BATCHED
                ? "batched requests (one per answered batch, as FlexLog's clients)"
                : "one request per SN")
            + "; each reply is the counter after the increment";
    String lastProblem = "";
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try (RatisCounterCluster cluster =
          RatisCounterCluster.start(dir.resolve("try-" + attempt), s.ratisLog())) {
        LoadControl control = new LoadControl(s.clients(), System::nanoTime);
        try (RatisCounterLoad load =
            new RatisCounterLoad(
                cluster, s.clients(), s.outstanding(), s.ratisRequests(), control, observer)) {
          return phases(s).run(label, description, load, control, s.clients(), err);
        }
      } catch (IOException e) {
        lastProblem = e.getMessage();
        err.println("[bench] " + label + ": start attempt " + attempt + " failed: " + lastProblem);
      }
    }
    return SideResult.failed(label, description, "cannot start the peers: " + lastProblem);
  }

  private static PhasedRun phases(OrderingSettings s) {
    return new PhasedRun(s.warmup(), s.duration(), PREPARE_TIMEOUT, DRAIN_TIMEOUT);
  }
}
