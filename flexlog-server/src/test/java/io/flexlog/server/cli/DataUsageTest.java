package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line {@code dev} prints about where it writes and how much. */
class DataUsageTest {
  @TempDir Path dir;

  @Test
  void shouldNameTheAbsoluteDirectoryWhatItHoldsInFilesAndOnDiskAndWhatTheLogsTake()
      throws Exception {
    Path data = dir.resolve("flexlog-data");
    Files.createDirectories(data.resolve("replica-1"));
    Files.write(data.resolve("replica-1/chunk-000000.log"), new byte[3 << 20]);
    Files.write(data.resolve("epoch"), new byte[512 << 10]);
    // A sparse 64 MiB chunk file: one byte written at its end.
    try (FileChannel sparse =
        FileChannel.open(
            data.resolve("replica-1/chunk-000001.log"),
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
      sparse.write(ByteBuffer.wrap(new byte[1]), (64L << 20) - 1);
    }

    String mapped = DataUsage.describe(data, 3, 256L << 20, "mapped");
    String llpl = DataUsage.describe(data, 3, 256L << 20, "llpl");

    assertThat(mapped)
        .startsWith("data: " + data.toAbsolutePath() + " holds 67.5MiB in files, ")
        .containsPattern(", 3\\.[5-9]MiB on disk now; ")
        .contains("the 3 replica logs take up to 3 x 256MiB = 768MiB (mapped engine: sparse chunk")
        .contains("--data DIR writes elsewhere");
    assertThat(llpl)
        .contains("the 3 replica logs take 3 x 256MiB = 768MiB on disk from the first start (llpl")
        .contains("every chunk allocated up front");
  }

  @Test
  void shouldCountNothingForADirectoryThatDoesNotExistYet() {
    assertThat(DataUsage.bytesUnder(dir.resolve("missing"))).isZero();
    assertThat(DiskUsage.allocatedUnder(dir.resolve("missing"))).isZero();
    assertThat(DataUsage.approx(1000)).isEqualTo("1000B");
    assertThat(DataUsage.approx(1536)).isEqualTo("1.5KiB");
    assertThat(DataUsage.approx(5L << 30)).isEqualTo("5.0GiB");
  }
}
