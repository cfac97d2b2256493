package io.flexlog.replica.storage.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.pm.MappedFileLogStorage;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records live off-heap: writing far more data than the allowed heap growth through the tiered
 * engine (cache, PM, SSD, with trims reclaiming space) leaves the used heap after GC flat.
 */
class HeapFlatTest {
  private static final long WRITE_BYTES = 256L << 20;
  private static final long ALLOWED_GROWTH_BYTES = 16L << 20;
  private static final int RECORD_BYTES = 4000;
  private static final int COLOR = 1;

  @TempDir Path dir;

  @Test
  void shouldKeepUsedHeapFlatUnderSustainedAppends() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    TierableLog pm =
        MappedFileLogStorage.open(dir.resolve("pm"), 8L << 20, 256 << 10, DurabilityMode.PROCESS);
    TieredStorageConfig config =
        new TieredStorageConfig(8L << 20, 0.5, dir.resolve("segments"), 2L << 20);
    ByteBuf payload = Unpooled.directBuffer(RECORD_BYTES).writeZero(RECORD_BYTES);
    List<Long> samples = new ArrayList<>();
    long baseline = -1;
    int segmentsSeen = 0;
    try (TieredLogStorage storage =
        TieredLogStorage.open(pm, config, new SimpleMeterRegistry(), Tags.empty())) {
      storage.recover((a, s, c, ts, tq, sn, l) -> {});
      long records = WRITE_BYTES / RECORD_BYTES;
      long lastAddress = -1;
      long sampleEvery = records / 16;
      for (long seq = 0; seq < records; seq++) {
        payload.setLong(0, seq);
        long address;
        while ((address = storage.appendPending(0, COLOR, 1, seq, payload))
            == LogStorage.NO_SPACE) {
          storage.flush(); // tiering catches up on its own thread
          LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
        storage.commit(address, seq + 1);
        lastAddress = address;
        if (seq % 32 == 31) {
          storage.flush();
          segmentsSeen = Math.max(segmentsSeen, storage.segmentCount());
        }
        if (seq % 4096 == 4095) {
          storage.trim(COLOR, seq + 1 - 2048); // keep the last 2048 records
        }
        if (seq > 0 && seq % sampleEvery == 0) {
          long used = usedAfterGc(memory);
          if (baseline < 0) {
            baseline = used; // after the first sixteenth: caches, maps and pools have grown
          } else {
            samples.add(used);
          }
        }
      }
      storage.flush();
      assertThat(storage.payload(lastAddress).getLong(0)).isEqualTo(records - 1);
    } finally {
      payload.release();
    }
    long worst = samples.stream().mapToLong(Long::longValue).max().orElseThrow();
    System.out.printf(
        "heap after GC: baseline %d KiB, worst %d KiB over %d samples, %d MiB written%n",
        baseline >> 10, worst >> 10, samples.size(), WRITE_BYTES >> 20);
    assertThat(segmentsSeen).as("the records went through the SSD tier").isPositive();
    assertThat(worst - baseline)
        .as("heap growth while writing %d MiB", WRITE_BYTES >> 20)
        .isLessThan(ALLOWED_GROWTH_BYTES);
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
