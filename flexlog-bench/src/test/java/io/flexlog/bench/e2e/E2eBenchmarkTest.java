package io.flexlog.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.replica.storage.StorageEngines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs of {@code bench e2e --embedded-tree} against the real nine-node tree cluster. They
 * check that the tooling measures both colors and that every subscriber got exactly what was acked,
 * not how fast the cluster is.
 */
class E2eBenchmarkTest {
  private static final Pattern SUBSCRIBER =
      Pattern.compile("\"passed\":(true|false),\"matched\":(\\d+),\"acked\":(\\d+)");

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private E2eSettings settings(List<String> colors, int rate, Path json) {
    return new E2eSettings(
        Optional.empty(),
        colors,
        2,
        2,
        64,
        rate,
        Duration.ofMillis(600),
        Duration.ofMillis(200),
        StorageEngines.MAPPED,
        32L << 20,
        Optional.of(json));
  }

  private int run(E2eSettings settings) throws InterruptedException {
    return E2eBenchmark.run(settings, dir, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void shouldReportTheRootAndTheLeafColorWithEveryAckedRecordDeliveredToEverySubscriber()
      throws Exception {
    Path json = dir.resolve("e2e.json");

    int exit = run(settings(List.of("global", "left"), 0, json));

    assertThat(exit).as("stdout: %s%nstderr: %s", out, err).isZero();
    assertThat(out.toString())
        .contains("color global (root)", "color left (leaf)")
        .containsPattern("append +[0-9.]+ appends/s +latency us p50 \\d+")
        .containsPattern("delivery +[0-9.]+ records/s per subscriber latency us p50 \\d+")
        .doesNotContain("FAILED");
    String[] lines = out.toString().strip().split("\n");
    assertThat(lines[lines.length - 1]).matches("ratio root/leaf delivery p50 = [0-9]+\\.[0-9]{2}");
    String written = Files.readString(json, StandardCharsets.UTF_8);
    assertThat(written).startsWith("{\"benchmark\":\"e2e\"").contains("\"valid\":true");
    Matcher m = SUBSCRIBER.matcher(written);
    int subscribers = 0;
    while (m.find()) {
      subscribers++;
      assertThat(m.group(1)).isEqualTo("true");
      assertThat(Long.parseLong(m.group(3))).isPositive();
      assertThat(m.group(2)).as("delivered vs acked").isEqualTo(m.group(3));
    }
    assertThat(subscribers).as("2 subscribers x 2 colors").isEqualTo(4);
    // The embedded cluster's temporary directory is gone; only the JSON file is left.
    try (var files = Files.list(dir)) {
      assertThat(files.toList()).containsExactly(json);
    }
  }

  @Test
  void shouldDeliverEveryAckedRecordWithARateInsteadOfAClosedLoop() throws Exception {
    Path json = dir.resolve("rate.json");

    int exit = run(settings(List.of("right"), 300, json));

    assertThat(exit).as("stdout: %s%nstderr: %s", out, err).isZero();
    assertThat(out.toString())
        .contains("300 appends/s per producer", "color right (leaf)")
        .doesNotContain("ratio");
    String written = Files.readString(json, StandardCharsets.UTF_8);
    assertThat(written).contains("\"ratioRootLeafDeliveryP50\":null");
    Matcher m = SUBSCRIBER.matcher(written);
    while (m.find()) {
      assertThat(m.group(2)).isEqualTo(m.group(3));
    }
  }

  @Test
  void shouldRefuseAnUnknownColorWithUsageExitCode() throws Exception {
    int exit = run(settings(List.of("global", "nowhere"), 0, dir.resolve("x.json")));

    assertThat(exit).isEqualTo(E2eBenchmark.EXIT_USAGE);
    assertThat(err.toString()).contains("--colors: unknown color 'nowhere'");
  }
}
