package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OrderingReportTest {
  private static final OrderingSettings SETTINGS =
      new OrderingSettings(
          2,
          2,
          16,
          32,
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          OrderedColor.ROOT,
          List.of(Placement.LOOPBACK, Placement.IN_PROCESS),
          true,
          RatisLog.DISK,
          RatisRequests.BATCHED,
          2,
          Optional.of(Path.of("out.json")));

  private static SideResult side(String label, double snsPerSec) {
    return new SideResult(
        label,
        label + " setup",
        (long) (snsPerSec * 10),
        10_000_000_000L,
        snsPerSec,
        12.5,
        99.0,
        150.25,
        900.0,
        0,
        Optional.empty());
  }

  private static final SideResult LOOPBACK = side("flexlog loopback", 1_000_000);
  private static final SideResult IN_PROCESS = side("flexlog in-process", 1_500_000);
  private static final SideResult RATIS = side("ratis counter", 40_000);

  @Test
  void shouldEndWithTheRatioOfTheFirstFlexLogVariantToRatis() {
    OrderingReport report =
        new OrderingReport(SETTINGS, 2, List.of(LOOPBACK, IN_PROCESS), Optional.of(RATIS));

    List<String> lines = report.text().lines().toList();

    assertThat(lines.get(lines.size() - 1)).isEqualTo("ratio flexlog/ratis = 25.00");
    assertThat(lines).contains("ratio flexlog in-process/ratis = 37.50");
    assertThat(report.ratio()).contains(25.0);
    assertThat(report.allValid()).isTrue();
  }

  @Test
  void shouldRoundTheRatioToTwoDecimals() {
    assertThat(OrderingReport.ratioLine(3.14159)).isEqualTo("ratio flexlog/ratis = 3.14");
    assertThat(OrderingReport.ratioLine(2.0049)).isEqualTo("ratio flexlog/ratis = 2.00");
    assertThat(OrderingReport.ratioLine(2.0051)).isEqualTo("ratio flexlog/ratis = 2.01");
  }

  @Test
  void shouldLabelEveryResultLineWithItsSide() {
    String text =
        new OrderingReport(SETTINGS, 2, List.of(LOOPBACK, IN_PROCESS), Optional.of(RATIS)).text();

    assertThat(text)
        .contains(
            "flexlog loopback     result   1000000.0 SNs/s  latency us p50 12.5  p99 99.0"
                + "  p99.9 150.3  max 900.0  (10000000 SNs in 10.000 s)")
        .contains("flexlog in-process   result   1500000.0 SNs/s")
        .contains("ratis counter        result   40000.0 SNs/s")
        .contains("flexlog loopback     setup    flexlog loopback setup");
  }

  @Test
  void shouldPrintWhatEachSideGuaranteesNextToItsResult() {
    String text =
        new OrderingReport(SETTINGS, 2, List.of(LOOPBACK, IN_PROCESS), Optional.of(RATIS)).text();

    assertThat(text)
        .contains("flexlog loopback     guarantee replication: none (one sequencer per color)")
        .contains("flexlog in-process   guarantee replication: none")
        .contains("ratis counter        guarantee replication: 3 Raft peers")
        .contains("not equal guarantees");
  }

  @Test
  void shouldPrintNoRatioWithoutRatis() {
    OrderingReport report = new OrderingReport(SETTINGS, 2, List.of(LOOPBACK), Optional.empty());

    assertThat(report.text()).doesNotContain("ratio");
    assertThat(report.ratio()).isEmpty();
  }

  @Test
  void shouldPrintNoRatioAndFailWhenASideFailed() {
    SideResult failed = SideResult.failed("ratis counter", "3 peers", "no leader");
    OrderingReport report = new OrderingReport(SETTINGS, 2, List.of(LOOPBACK), Optional.of(failed));

    assertThat(report.text())
        .doesNotContain("ratio")
        .contains("ratis counter        FAILED   no leader");
    assertThat(report.allValid()).isFalse();
  }

  @Test
  void shouldTreatSnsOutOfOrderAsInvalid() {
    SideResult disordered =
        new SideResult(
            "flexlog loopback", "x", 100, 1_000_000_000L, 100, 1, 2, 3, 4, 2, Optional.empty());
    OrderingReport report =
        new OrderingReport(SETTINGS, 2, List.of(disordered), Optional.of(RATIS));

    assertThat(report.allValid()).isFalse();
    assertThat(report.ratio()).isEmpty();
    assertThat(report.text())
        .contains(
            "flexlog loopback     INVALID  2 SNs were not larger than the client's previous SN");
  }

  @Test
  void shouldWriteEveryResultAsOneJsonObject() {
    OrderingReport report =
        new OrderingReport(SETTINGS, 2, List.of(LOOPBACK, IN_PROCESS), Optional.of(RATIS));

    String side =
        "\"sns\":%d,\"elapsedSeconds\":10.000,\"snsPerSec\":%s,"
            + "\"latencyUs\":{\"p50\":12.500,\"p99\":99.000,\"p999\":150.250,\"max\":900.000},"
            + "\"orderViolations\":0,\"valid\":true,\"failure\":null}";
    assertThat(report.json())
        .isEqualTo(
            "{\"benchmark\":\"ordering\",\"leaves\":2,\"height\":2,\"clients\":16,"
                + "\"outstanding\":32,\"color\":\"root\",\"clientThreads\":2,\"cpus\":"
                + Runtime.getRuntime().availableProcessors()
                + ",\"commonPoolParallelism\":2,\"warmupSeconds\":2.000,"
                + "\"durationSeconds\":10.000,\"flexlog\":["
                + "{\"label\":\"flexlog loopback\",\"description\":\"flexlog loopback setup\","
                + String.format(side, 10_000_000, "1000000.000")
                + ",{\"label\":\"flexlog in-process\","
                + "\"description\":\"flexlog in-process setup\","
                + String.format(side, 15_000_000, "1500000.000")
                + "],\"ratis\":{\"label\":\"ratis counter\",\"description\":\"ratis counter setup\","
                + String.format(side, 400_000, "40000.000")
                + ",\"ratisLog\":\"disk\",\"ratisRequests\":\"batched\",\"ratio\":25.000}");
  }

  @Test
  void shouldWriteNullsForAMissingPeerAndRatio() {
    OrderingSettings alone =
        new OrderingSettings(
            0,
            1,
            1,
            1,
            Duration.ofSeconds(1),
            Duration.ZERO,
            OrderedColor.ROOT,
            List.of(Placement.LOOPBACK),
            false,
            RatisLog.DISK,
            RatisRequests.BATCHED,
            1,
            Optional.empty());
    String json = new OrderingReport(alone, 1, List.of(LOOPBACK), Optional.empty()).json();

    assertThat(json).endsWith(",\"ratis\":null,\"ratio\":null}").doesNotContain("ratisLog");
  }
}
