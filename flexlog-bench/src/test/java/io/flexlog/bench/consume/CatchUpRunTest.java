package io.flexlog.bench.consume;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.server.dev.DevCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench consume --mode catchup} against a real embedded cluster: both readers read back
 * every loaded record (exit 0) and print the rate, the build time and the rate counting it. Not a
 * measurement of how fast it is.
 */
class CatchUpRunTest {
  @TempDir Path dir;

  @Test
  void shouldReadEveryLoadedRecordAndReportTheClockAsKafkasToolStartsIt() throws Exception {
    StringWriter out = new StringWriter();
    try (DevCluster cluster = SmallDevCluster.start(dir)) {
      PrintWriter writer = new PrintWriter(out, true);
      String bootstrap = cluster.bootstrap();

      assertThat(new CatchUpRun(bootstrap, "global", 3000, 100, "consumer", true, writer).run())
          .as(out.toString())
          .isZero();
      assertThat(new CatchUpRun(bootstrap, "global", 3000, 100, "stream", false, writer).run())
          .as(out.toString())
          .isZero();
      // The first 1,000 of the 3,000 (the harness reads the first (a) + (b) records of a color
      // that holds more when a phase was repeated): polls return more, only 1,000 count.
      assertThat(new CatchUpRun(bootstrap, "global", 1000, 100, "consumer", false, writer).run())
          .as(out.toString())
          .isZero();
    }
    assertThat(out.toString())
        .contains("loaded 3,000 records")
        .containsPattern("catch-up \\(consumer\\): 3,000 records in [0-9.]+ s: [0-9,]+ records/s")
        .containsPattern("catch-up \\(stream\\): 3,000 records in [0-9.]+ s: [0-9,]+ records/s")
        .containsPattern("catch-up \\(consumer\\): 1,000 records in [0-9.]+ s: [0-9,]+ records/s")
        .containsPattern(
            "building it \\(connection included\\) took \\d+ ms, the first records came \\d+ ms"
                + " after the clock started; counting the build: [0-9,]+ records/s");
  }
}
