package io.flexlog.bench.consume;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.ConsumerRecords;
import io.flexlog.server.dev.DevCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench consume --mode roundtrip}: a short run against a real embedded cluster checks that
 * every round trip got back exactly its own record and that both report lines are printed; the
 * check itself refuses anything else. Not a measurement of how fast the cluster is.
 */
class RoundTripRunTest {
  private static final ColorShard WHOLE = ColorShard.wholeColor("global");

  @TempDir Path dir;

  @Test
  void shouldMakeEveryRoundTripAndReportItInMicrosecondsAndAsKafkasToolDoes() throws Exception {
    StringWriter out = new StringWriter();
    try (DevCluster cluster = SmallDevCluster.start(dir)) {
      int exit =
          new RoundTripRun(cluster.bootstrap(), "global", 64, 200, 1000, new PrintWriter(out, true))
              .run();

      assertThat(exit).as(out.toString()).isZero();
    }
    assertThat(out.toString())
        .contains("-1000\t", "(warm-up)", "\n0\t")
        .containsPattern("round trips: 200 of 64 bytes, avg [0-9.]+ ms, p50 \\d+ us, p99 \\d+ us")
        .containsPattern(
            "parts: send to ack p50 \\d+ us, p99 \\d+ us; poll after the ack p50 \\d+ us, p99 \\d+ us")
        .containsPattern("over 1 ms per 1,000 round trips, in order: \\d+\n")
        .containsPattern(
            "as EndToEndLatency prints it \\(whole ms, truncated\\): Avg latency: [0-9.]+ ms,"
                + " Percentiles: 50th = \\d+, 99th = \\d+, 99.9th = \\d+");
  }

  @Test
  void shouldAcceptOnlyExactlyTheRecordSent() {
    byte[] value = {1, 2, 3};

    assertThat(RoundTripRun.check(polled(record(7, value)), 7, value)).isNull();
    assertThat(RoundTripRun.check(ConsumerRecords.empty(), 7, value))
        .isEqualTo("poll returned nothing within 10000 ms");
    assertThat(RoundTripRun.check(polled(record(7, value), record(8, value)), 7, value))
        .isEqualTo("poll returned 2 records, expected only the one sent");
    assertThat(RoundTripRun.check(polled(record(6, value)), 7, value))
        .isEqualTo("poll returned SN 6, not the record sent as SN 7");
    assertThat(RoundTripRun.check(polled(record(7, new byte[] {1, 2, 4})), 7, value))
        .isEqualTo("poll returned SN 7, not the record sent as SN 7");
  }

  @Test
  void shouldCountTheSlowRoundTripsOfEachThousandInOrder() {
    long[] latencyNs = new long[2500];
    latencyNs[0] = 1_000_001; // first thousand: just over
    latencyNs[999] = 5_000_000;
    latencyNs[1000] = 1_000_000; // second: exactly 1 ms is not over
    latencyNs[2499] = 2_000_000; // the last, shorter group

    assertThat(RoundTripRun.slowPerThousand(latencyNs, RoundTripRun.SLOW_NS))
        .containsExactly(2, 0, 1);
    assertThat(RoundTripRun.slowPerThousand(new long[0], RoundTripRun.SLOW_NS)).isEmpty();
  }

  private static ConsumerRecord<byte[], byte[]> record(long sn, byte[] value) {
    return new ConsumerRecord<>(
        "global", -1, sn, null, value, List.of(), ConsumerRecord.NO_TIMESTAMP, -1, value.length);
  }

  @SafeVarargs
  private static ConsumerRecords<byte[], byte[]> polled(ConsumerRecord<byte[], byte[]>... records) {
    return new ConsumerRecords<>(Map.of(WHOLE, List.of(records)));
  }
}
