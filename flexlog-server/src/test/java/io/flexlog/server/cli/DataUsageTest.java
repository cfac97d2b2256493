package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line {@code dev} prints about where it writes and how much. */
class DataUsageTest {
  @TempDir Path dir;

  @Test
  void shouldNameTheAbsoluteDirectoryWhatItHoldsAndWhatTheLogsTake() throws Exception {
    Path data = dir.resolve("flexlog-data");
    Files.createDirectories(data.resolve("replica-1"));
    Files.write(data.resolve("replica-1/chunk-000000.log"), new byte[3 << 20]);
    Files.write(data.resolve("epoch"), new byte[512 << 10]);

    String line = DataUsage.describe(data, 3, 256L << 20);

    assertThat(line)
        .startsWith("data: " + data.toAbsolutePath() + " holds 3.5MiB now; ")
        .contains("the 3 replica logs take 3 x 256MiB = 768MiB (allocated at the first start)")
        .contains("--data DIR writes elsewhere");
  }

  @Test
  void shouldCountNothingForADirectoryThatDoesNotExistYet() {
    assertThat(DataUsage.bytesUnder(dir.resolve("missing"))).isZero();
    assertThat(DataUsage.approx(1000)).isEqualTo("1000B");
    assertThat(DataUsage.approx(1536)).isEqualTo("1.5KiB");
    assertThat(DataUsage.approx(5L << 30)).isEqualTo("5.0GiB");
  }
}
