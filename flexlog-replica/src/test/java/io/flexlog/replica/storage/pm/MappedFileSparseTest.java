package io.flexlog.replica.storage.pm;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.replica.storage.DurabilityMode;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mapped engine sizes its disk use lazily (docs/operations.md, "A local cluster in one
 * process"): chunk files are sparse, so a new log takes a few pages per chunk on disk and grows as
 * chunks are written. Disk use is read with {@code du}, as {@code dev} does.
 */
class MappedFileSparseTest {
  private static final long CHUNK = 1L << 20;
  private static final long CAPACITY = 64 * CHUNK;

  @TempDir Path dir;

  @Test
  void shouldTakeDiskSpaceOnlyAsChunksAreWritten() throws Exception {
    try (MappedFileLogStorage log =
        MappedFileLogStorage.open(dir, CAPACITY, CHUNK, DurabilityMode.PROCESS)) {
      log.recover((address, shard, color, session, sequence, sn, length) -> {});
      long fresh = allocatedBytes(dir);
      assertThat(log.capacityBytes()).isEqualTo(CAPACITY);
      assertThat(fresh).as("a fresh 64 MiB log on disk").isLessThan(CAPACITY / 16);

      byte[] payload = new byte[8000];
      java.util.Arrays.fill(payload, (byte) 7);
      long written = 0;
      for (int i = 0; written < 16 * CHUNK; i++) {
        long address = log.appendPending(0, 0, 1, i, Unpooled.wrappedBuffer(payload));
        assertThat(address).isNotEqualTo(MappedFileLogStorage.NO_SPACE);
        log.commit(address, ((long) 1 << 32) | (i + 1));
        written += payload.length;
      }
      log.flush();

      long after = allocatedBytes(dir);
      assertThat(after - fresh)
          .as("disk space taken by 16 MiB of records")
          .isBetween(15 * CHUNK, 18 * CHUNK);
      assertThat(after).isLessThan(CAPACITY / 2);
    }
  }

  private static long allocatedBytes(Path dir) throws IOException, InterruptedException {
    Process du = new ProcessBuilder("du", "-sk", dir.toString()).start();
    assertThat(du.waitFor(10, TimeUnit.SECONDS)).isTrue();
    String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(du.exitValue()).as("du -sk: " + out).isZero();
    return Long.parseLong(out.split("\\s+")[0]) * 1024;
  }
}
