package io.flexlog.replica.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.tier.TieredStorageConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LogStorage#abandon}: a pending entry given up (docs/architecture.md#retention, "Abandoned
 * records") is dead like a trimmed one in every engine: never replayed, and its chunk is freed.
 */
class AbandonedEntryTest {
  private static final int SHARD = 3;
  private static final int COLOR = 5;
  private static final long CHUNK = 1 << 20;
  private static final long CAPACITY = 16 * CHUNK; // llpl's metadata needs room beyond the chunks

  @TempDir Path dir;

  private LogStorage open(String engine) {
    assumeTrue(
        !engine.equals(StorageEngines.LLPL)
            || StorageEngines.defaultEngine().equals(StorageEngines.LLPL),
        "llpl unavailable here: " + StorageEngines.fallbackNotice());
    return switch (engine) {
      case "tiered" ->
          StorageEngines.openTiered(
              StorageEngines.MAPPED,
              dir,
              CAPACITY,
              CHUNK,
              DurabilityMode.PROCESS,
              TieredStorageConfig.defaults(dir.resolve("segments")),
              new SimpleMeterRegistry(),
              List.of());
      default -> StorageEngines.open(engine, dir, CAPACITY, CHUNK, DurabilityMode.PROCESS);
    };
  }

  private static long append(LogStorage log, long sequence, int bytes) {
    long address =
        log.appendPending(SHARD, COLOR, 9, sequence, Unpooled.wrappedBuffer(new byte[bytes]));
    assertThat(address).isNotEqualTo(LogStorage.NO_SPACE);
    return address;
  }

  @ParameterizedTest
  @ValueSource(strings = {StorageEngines.MAPPED, StorageEngines.LLPL, "tiered"})
  void shouldNeverReplayAnAbandonedEntry(String engine) {
    try (LogStorage log = open(engine)) {
      log.recover((a, s, c, ts, tq, sn, l) -> {});
      long committed = append(log, 0, 100);
      long abandoned = append(log, 1, 100);
      append(log, 2, 100);
      log.commit(committed, 11);
      log.abandon(abandoned);
      log.flush();
    }
    try (LogStorage log = open(engine)) {
      List<Entry> recovered = Entry.recoverAll(log);
      assertThat(recovered).extracting(Entry::tokenSequence).containsExactly(0L, 2L);
      assertThat(recovered).extracting(Entry::sn).containsExactly(11L, 0L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {StorageEngines.MAPPED, StorageEngines.LLPL})
  void shouldFreeAChunkOfAbandonedEntriesAtTheNextTrim(String engine) {
    try (LogStorage log = open(engine)) {
      log.recover((a, s, c, ts, tq, sn, l) -> {});
      int perChunk = 8;
      long[] addresses = new long[3 * perChunk];
      for (int i = 0; i < addresses.length; i++) {
        addresses[i] = append(log, i, (int) (CHUNK / perChunk) - 256);
      }
      for (int i = 0; i < addresses.length; i++) {
        if (i % 2 == 0) {
          log.commit(addresses[i], i + 1);
        } else {
          log.abandon(addresses[i]);
        }
      }
      log.flush();
      long used = log.usedBytes();

      log.trim(COLOR, addresses.length); // every committed entry: only the open chunk stays
      assertThat(log.usedBytes()).isLessThan(used).isLessThanOrEqualTo(CHUNK);
    }
  }
}
