package io.flexlog.bench.e2e;

import io.flexlog.bench.report.Directories;
import io.flexlog.bench.report.ReportOutput;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs {@code flexlog bench e2e}: starts the embedded tree (or uses the given cluster), connects
 * the producer and subscriber clients, measures each color in turn with {@link ColorRun}, then
 * prints and writes the report. The embedded cluster and its temporary directory are removed at the
 * end, also when the run fails.
 */
public final class E2eBenchmark {
  static final int EXIT_OK = ReportOutput.EXIT_OK;
  static final int EXIT_FAILED = ReportOutput.EXIT_FAILED;
  static final int EXIT_USAGE = 2;

  /** Extra wait for the last appends beyond the client's own delivery timeout. */
  private static final Duration DRAIN_MARGIN = Duration.ofSeconds(10);

  private E2eBenchmark() {}

  /** The command's runner: temporary data under the system's temporary directory. */
  public static int run(E2eSettings settings, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    return run(settings, Path.of(System.getProperty("java.io.tmpdir")), out, err);
  }

  /**
   * @param tempParent where the embedded cluster's temporary directory is created
   */
  static int run(E2eSettings settings, Path tempParent, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    if (settings.bootstrap().isPresent()) {
      return runAgainst(
          settings.bootstrap().get(),
          "bootstrap " + settings.bootstrap().get(),
          settings,
          out,
          err);
    }
    Path work;
    try {
      work = Files.createTempDirectory(tempParent, "flexlog-bench-e2e-");
    } catch (IOException e) {
      err.println("cannot create a temporary directory under " + tempParent + ": " + e);
      return EXIT_FAILED;
    }
    try {
      err.println("[bench] starting the embedded tree cluster (dev --tree layout) under " + work);
      err.flush();
      EmbeddedTree tree;
      try {
        tree = EmbeddedTree.start(work, settings.engine(), settings.pmBytes(), err);
      } catch (Exception e) {
        err.println("cannot start the embedded tree cluster: " + e);
        return EXIT_FAILED;
      }
      try (tree) {
        String cluster =
            "embedded tree (dev --tree: global over left and right, 2 shards x 3 replicas per"
                + " leaf) at "
                + tree.bootstrap()
                + "; "
                + tree.storageLine()
                    .replaceFirst("^replica \\d+ storage: ", "per replica: ")
                    .replaceFirst(" data=.*$", "");
        return runAgainst(tree.bootstrap(), cluster, settings, out, err);
      }
    } finally {
      Directories.deleteOrWarn(work, err);
    }
  }

  private static int runAgainst(
      String bootstrap, String cluster, E2eSettings settings, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    FlexLogConfig config = FlexLogConfig.builder().bootstrapServers(bootstrap).build();
    List<FlexLog> producers = new ArrayList<>();
    List<FlexLog> subscribers = new ArrayList<>();
    try {
      try {
        for (int i = 0; i < settings.producers(); i++) {
          producers.add(FlexLog.connect(config));
        }
        for (int i = 0; i < settings.subscribers(); i++) {
          subscribers.add(FlexLog.connect(config));
        }
      } catch (RuntimeException e) {
        err.println("cannot connect to " + bootstrap + ": " + e.getMessage());
        return EXIT_FAILED;
      }
      Topology topology = producers.get(0).topology();
      Optional<String> mismatch = checkAgainstCluster(settings, topology, producers.get(0));
      if (mismatch.isPresent()) {
        err.println(mismatch.get());
        return EXIT_USAGE;
      }
      long runId = ThreadLocalRandom.current().nextLong();
      ColorRun colorRun =
          new ColorRun(
              settings,
              producers,
              subscribers,
              config.deliveryTimeout().plus(DRAIN_MARGIN),
              runId,
              err);
      List<ColorResult> results = new ArrayList<>();
      for (int i = 0; i < settings.colors().size(); i++) {
        String color = settings.colors().get(i);
        results.add(colorRun.run(color, i, role(topology, color)));
      }
      return report(new E2eReport(settings, cluster, results), out, err);
    } finally {
      subscribers.forEach(FlexLog::close);
      producers.forEach(FlexLog::close);
    }
  }

  static Optional<String> checkAgainstCluster(E2eSettings s, Topology topology, FlexLog log) {
    for (String color : s.colors()) {
      if (topology.color(color).isEmpty()) {
        return Optional.of(
            "--colors: unknown color '"
                + color
                + "'; the cluster has "
                + topology.colors().stream().map(Color::name).sorted().toList());
      }
    }
    if (s.recordBytes() > log.maxRecordBytes()) {
      return Optional.of(
          "--record-bytes "
              + s.recordBytes()
              + " exceeds the cluster's max.record.bytes="
              + log.maxRecordBytes());
    }
    return Optional.empty();
  }

  /** {@code root} (total order over every shard), {@code leaf} (no children) or {@code inner}. */
  static String role(Topology topology, String name) {
    Color color = topology.color(name).orElseThrow();
    if (color.isRoot()) {
      return "root";
    }
    boolean hasChildren = topology.colors().stream().anyMatch(c -> c.parentId() == color.id());
    return hasChildren ? "inner" : "leaf";
  }

  static int report(E2eReport report, PrintWriter out, PrintWriter err) {
    return ReportOutput.emit(
        report.text(),
        report.json(),
        report.settings().json(),
        report.allValid(),
        "a color failed: see the FAILED lines above",
        out,
        err);
  }
}
