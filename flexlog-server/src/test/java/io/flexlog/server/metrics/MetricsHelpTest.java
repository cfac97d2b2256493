package io.flexlog.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Prometheus scrapes from a dev cluster that appended and read: every FlexLog meter has a HELP
 * text, the replicas publish append, order and read latency histograms and per-color counters.
 */
class MetricsHelpTest {
  @TempDir Path data;

  @Test
  void shouldDescribeEveryMeterAndPublishLatencyHistogramsAndPerColorCounters() throws Exception {
    String scrape;
    try (MetricsEndpoint metrics = new MetricsEndpoint(DevCluster.HOST, 0);
        DevCluster cluster =
            DevCluster.start(
                new DevCluster.Options(
                    data,
                    FreePorts.consecutive(4),
                    StorageEngines.MAPPED,
                    DurabilityMode.PROCESS,
                    16L << 20),
                metrics.registry(),
                new PrintStream(new ByteArrayOutputStream()))) {
      try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
        long sn = log.append("global", new byte[100]);
        log.append("global", new byte[100]);
        assertThat(log.read("global", sn)).isPresent();
      }
      scrape = metrics.registry().scrape();
    }
    List<String> help = scrape.lines().filter(l -> l.startsWith("# HELP flexlog_")).toList();
    assertThat(help).isNotEmpty();
    assertThat(help).allSatisfy(line -> assertThat(line).matches("# HELP \\S+ \\S.*"));
    assertThat(scrape)
        .contains("flexlog_replica_append_latency_seconds_bucket{")
        .contains("flexlog_replica_order_latency_seconds_bucket{")
        .contains("flexlog_replica_read_latency_seconds_bucket{")
        .containsPattern("flexlog_replica_color_appends_total\\{color=\"global\",node=\"1\"} 2")
        .containsPattern("flexlog_replica_color_bytes_total\\{color=\"global\",node=\"1\"} 200")
        .containsPattern("flexlog_replica_color_reads_total\\{color=\"global\",node=\"\\d\"} 1");
  }
}
