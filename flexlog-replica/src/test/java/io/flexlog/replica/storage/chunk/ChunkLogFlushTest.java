package io.flexlog.replica.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link ChunkLog#flush()} asks the engine to make durable, observed with a fake flusher. */
class ChunkLogFlushTest {
  private static final int CHUNK = 8192;
  private static final int GAP = 256;

  private final List<String> flushes = new ArrayList<>();
  private final ChunkLog log = newLog(3);

  private ChunkLog newLog(int chunks) {
    ChunkMemory[] memory = new ChunkMemory[chunks];
    for (int i = 0; i < chunks; i++) {
      int index = i;
      memory[i] =
          new ByteBufChunkMemory(
              ByteBuffer.allocateDirect(CHUNK),
              (offset, length) -> flushes.add(index + ":" + offset + "+" + length));
      ChunkHeaders.format(memory[i], i, CHUNK);
    }
    ChunkMemory trimRegion =
        new ByteBufChunkMemory(
            ByteBuffer.allocateDirect(TrimTableDescriptor.LENGTH), RangeFlusher.NONE);
    TrimTable.format(trimRegion);
    flushes.clear();
    return new ChunkLog(memory, CHUNK, GAP, true, TrimTable.open(trimRegion, "test"));
  }

  private long append(int length) {
    return log.appendPending(1, 2, 3, 4, Unpooled.wrappedBuffer(new byte[length]), 0, length);
  }

  @Test
  void shouldFlushTheAppendedRangeOnceAndCommitsInsideItNotAgain() {
    flushes.clear();
    append(0); // opens chunk 0: its sequence is flushed before any entry
    assertThat(flushes).containsExactly("0:24+8");
    flushes.clear();
    long a = append(100);
    append(100);
    log.commit(a, 77);

    log.flush();

    assertThat(flushes).containsExactly("0:64+328");
  }

  @Test
  void shouldCoalesceNearbyCommittedSnWordsOfOlderEntries() {
    long[] addresses = new long[6];
    for (int i = 0; i < 6; i++) {
      addresses[i] = append(16); // 56-byte entries: SN words 56 bytes apart
    }
    log.flush();
    flushes.clear();
    for (long address : addresses) {
      log.commit(address, 1);
    }

    log.flush();

    int firstSn = ChunkLog.offset(addresses[0]) + PmEntryDescriptor.SN_OFFSET;
    int lastSnEnd = ChunkLog.offset(addresses[5]) + PmEntryDescriptor.SN_OFFSET + 8;
    assertThat(flushes).containsExactly("0:" + firstSn + "+" + (lastSnEnd - firstSn));
  }

  @Test
  void shouldFlushDistantOrOutOfOrderSnWordsSeparately() {
    long first = append(16);
    append(1000);
    long far = append(16);
    log.flush();
    flushes.clear();
    log.commit(far, 1);
    log.commit(first, 1);

    log.flush();

    assertThat(flushes)
        .containsExactly(
            "0:" + (ChunkLog.offset(far) + 32) + "+8", "0:" + (ChunkLog.offset(first) + 32) + "+8");
  }

  @Test
  void shouldFlushTheRestOfAChunkBeforeOpeningTheNext() {
    append(4000);
    append(4000);
    flushes.clear();

    long third = append(4000); // does not fit: chunk 1 opens

    assertThat(ChunkLog.chunkSequence(third)).isEqualTo(2);
    assertThat(flushes).containsExactly("0:64+8080", "1:24+8");
    assertThat(log.usedBytes()).isEqualTo(CHUNK + 64 + PmEntryDescriptor.entryLength(4000));
  }
}
