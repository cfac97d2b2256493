package io.flexlog.replica.storage.pm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.TierUsage;
import io.flexlog.replica.storage.Entry;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.TestPayloads;
import io.flexlog.replica.storage.chunk.ChunkAccess;
import io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor;
import io.flexlog.replica.storage.chunk.ChunkMemory;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
import io.flexlog.replica.storage.chunk.PmEntryDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour every {@link LogStorage} engine must have. One subclass per engine supplies {@link
 * #open}; torn states are fabricated through the engine's own chunk memory ({@link
 * ChunkAccess#chunkOf}) and then recovered by the real recovery code after a reopen.
 */
abstract class LogStorageContractTest {
  static final int CHUNK_BYTES = 64 * 1024;
  static final long SESSION = 0x5E55_10A1L;
  static final int SHARD = 7;
  static final int COLOR = 3;

  @TempDir Path dir;
  private ChunkedLogStorage storage;

  /** Opens (creating if needed) a log of roughly {@code chunks} chunks of {@code chunkBytes}. */
  abstract ChunkedLogStorage open(Path dir, int chunks, long chunkBytes);

  @AfterEach
  void closeStorage() {
    if (storage != null) {
      storage.close();
    }
  }

  private ChunkedLogStorage openFresh(int chunks) {
    storage = open(dir, chunks, CHUNK_BYTES);
    return storage;
  }

  private List<Entry> reopenAndRecover(int chunks) {
    storage.close();
    storage = open(dir, chunks, CHUNK_BYTES);
    return Entry.recoverAll(storage);
  }

  private static long sn(long tokenSequence) {
    return (1L << 32) | (tokenSequence + 1);
  }

  /** Appends entries with token sequences [from, from + count), payload lengths from the seq. */
  private static long[] append(LogStorage log, long from, int count, int maxLength) {
    long[] addresses = new long[count];
    for (int i = 0; i < count; i++) {
      long seq = from + i;
      ByteBuf payload = Unpooled.wrappedBuffer(payloadBytes(seq, maxLength));
      addresses[i] = log.appendPending(SHARD, COLOR, SESSION, seq, payload);
      assertThat(addresses[i]).as("append %d", seq).isNotEqualTo(LogStorage.NO_SPACE);
    }
    return addresses;
  }

  private static byte[] payloadBytes(long seq, int maxLength) {
    return TestPayloads.bytes(seq, TestPayloads.length(seq, maxLength));
  }

  private static void commitAll(LogStorage log, long from, long[] addresses) {
    for (int i = 0; i < addresses.length; i++) {
      log.commit(addresses[i], sn(from + i));
    }
  }

  private static void assertEntries(List<Entry> entries, long from, int count, int maxLength) {
    assertThat(entries).hasSize(count);
    for (int i = 0; i < count; i++) {
      Entry entry = entries.get(i);
      long seq = from + i;
      assertThat(entry.tokenSequence()).as("entry %d", i).isEqualTo(seq);
      assertThat(entry.tokenSession()).isEqualTo(SESSION);
      assertThat(entry.shardId()).isEqualTo(SHARD);
      assertThat(entry.colorId()).isEqualTo(COLOR);
      assertThat(entry.payload()).as("payload of %d", seq).isEqualTo(payloadBytes(seq, maxLength));
    }
  }

  @Test
  void shouldRoundTripPayloadsOfEverySizeWithIdenticalBytes() {
    ChunkedLogStorage log = openFresh(16);
    int max = ChunkHeaderDescriptor.maxPayloadLength(log.chunkSize());
    int[] sizes = {0, 1, 7, 8, 9, 39, 40, 41, 1000, 4093, 4096, max - 8, max - 1, max};
    long[] addresses = new long[sizes.length];
    byte[][] payloads = new byte[sizes.length][];
    for (int i = 0; i < sizes.length; i++) {
      payloads[i] = TestPayloads.bytes(i, sizes[i]);
      addresses[i] =
          log.appendPending(SHARD, COLOR, SESSION, i, Unpooled.wrappedBuffer(payloads[i]));
      log.commit(addresses[i], sn(i));
    }
    log.flush();
    for (int i = 0; i < sizes.length; i++) {
      assertThat(log.payloadLength(addresses[i])).isEqualTo(sizes[i]);
      assertThat(TestPayloads.copy(log.payload(addresses[i]))).isEqualTo(payloads[i]);
    }
    ByteBuf scanned = Unpooled.buffer();
    try {
      for (int i = 0; i < sizes.length; i++) {
        int before = scanned.writerIndex();
        assertThat(log.scanCopy(addresses[i], scanned, Integer.MAX_VALUE)).isEqualTo(sizes[i]);
        assertThat(TestPayloads.copy(scanned.slice(before, sizes[i]))).isEqualTo(payloads[i]);
        assertThat(log.scanCopy(addresses[i], scanned, sizes[i])).isEqualTo(-1 - sizes[i]);
        assertThat(scanned.writerIndex()).isEqualTo(before + sizes[i]);
      }
    } finally {
      scanned.release();
    }

    List<Entry> recovered = reopenAndRecover(16);

    assertThat(recovered).hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      assertThat(recovered.get(i).address()).isEqualTo(addresses[i]);
      assertThat(recovered.get(i).sn()).isEqualTo(sn(i));
      assertThat(recovered.get(i).payloadLength()).isEqualTo(sizes[i]);
      assertThat(recovered.get(i).payload()).isEqualTo(payloads[i]);
    }
  }

  @Test
  void shouldNotMoveTheSourceBufferIndexesOfAnyBufferKind() {
    ChunkedLogStorage log = openFresh(4);
    byte[] bytes = TestPayloads.bytes(1, 300);
    ByteBuf heap = Unpooled.wrappedBuffer(bytes).readerIndex(10);
    ByteBuf direct = Unpooled.directBuffer(300).writeBytes(bytes).readerIndex(10);
    CompositeByteBuf composite =
        Unpooled.compositeBuffer()
            .addComponent(true, Unpooled.wrappedBuffer(bytes, 0, 100))
            .addComponent(true, Unpooled.directBuffer(200).writeBytes(bytes, 100, 200));
    composite.readerIndex(10);
    try {
      for (ByteBuf source : List.of(heap, direct, composite)) {
        long address = log.appendPending(SHARD, COLOR, SESSION, 1, source);

        assertThat(source.readerIndex()).isEqualTo(10);
        assertThat(source.writerIndex()).isEqualTo(300);
        assertThat(TestPayloads.copy(log.payload(address)))
            .isEqualTo(java.util.Arrays.copyOfRange(bytes, 10, 300));
      }
    } finally {
      direct.release();
      composite.release();
    }
  }

  @Test
  void shouldReturnReadOnlyPayloadViews() {
    ChunkedLogStorage log = openFresh(4);
    long address = append(log, 0, 1, 100)[0];
    ByteBuf view = log.payload(address);

    assertThat(view.isReadOnly()).isTrue();
    assertThatThrownBy(() -> view.setByte(0, 1)).isInstanceOf(ReadOnlyBufferException.class);
  }

  @Test
  void shouldReplayEntriesSpanningManyChunksInOrderWithTheirSns() {
    ChunkedLogStorage log = openFresh(16);
    int count = 800;
    long[] addresses = append(log, 0, count, 2000);
    log.flush();
    // Commits arrive after the writer has moved on: SN words in older chunks are flushed too.
    commitAll(log, 0, addresses);
    log.flush();
    assertThat(addresses[count - 1] >>> 32).as("chunks used").isGreaterThanOrEqualTo(5);

    List<Entry> recovered = reopenAndRecover(16);

    assertEntries(recovered, 0, count, 2000);
    for (int i = 0; i < count; i++) {
      assertThat(recovered.get(i).address()).isEqualTo(addresses[i]);
      assertThat(recovered.get(i).sn()).isEqualTo(sn(i));
    }
  }

  @Test
  void shouldCountPmEntriesUntilTheirChunkIsFreedAndAgainAfterRecovery() {
    ChunkedLogStorage log = openFresh(16);
    int count = 800;
    long[] addresses = append(log, 0, count, 2000);
    commitAll(log, 0, addresses);
    log.flush();
    TierUsage usage = log.tierUsage();
    assertThat(usage.pmRecords()).isEqualTo(count);
    assertThat(usage.pmBytes()).isEqualTo(log.usedBytes());
    assertThat(usage.pmCapacityBytes()).isEqualTo(log.capacityBytes());
    assertThat(usage.cacheRecords() + usage.ssdRecords() + usage.ssdSegments()).isZero();

    assertThat(reopenAndRecover(16)).hasSize(count);
    assertThat(storage.tierUsage().pmRecords()).isEqualTo(count);

    // Trimming everything frees every sealed chunk; the open chunk keeps its entries.
    storage.trim(COLOR, sn(count - 1));
    storage.flush();
    long left = storage.tierUsage().pmRecords();
    assertThat(left).isLessThan(count / 4).isPositive();
    assertThat(reopenAndRecover(16)).isEmpty();
    assertThat(storage.tierUsage().pmRecords()).isEqualTo(left);
  }

  @Test
  void shouldReturnPendingEntriesAsPendingAfterReopen() {
    ChunkedLogStorage log = openFresh(4);
    long[] addresses = append(log, 0, 10, 500);
    for (int i = 0; i < 10; i += 2) {
      log.commit(addresses[i], sn(i));
    }
    log.flush();

    List<Entry> recovered = reopenAndRecover(4);

    assertEntries(recovered, 0, 10, 500);
    for (int i = 0; i < 10; i++) {
      assertThat(recovered.get(i).sn()).isEqualTo(i % 2 == 0 ? sn(i) : 0L);
    }
  }

  @Test
  void shouldReturnNoSpaceWhenFullAndKeepEverythingAppended() {
    ChunkedLogStorage log = openFresh(4);
    byte[] bytes = TestPayloads.bytes(9, 3000);
    int appended = 0;
    while (log.appendPending(SHARD, COLOR, SESSION, appended, Unpooled.wrappedBuffer(bytes))
        != LogStorage.NO_SPACE) {
      appended++;
    }
    log.flush();
    long perChunk =
        (log.chunkSize() - ChunkHeaderDescriptor.ENTRIES_OFFSET)
            / PmEntryDescriptor.entryLength(3000);
    assertThat((long) appended).isEqualTo(perChunk * log.chunkCount());
    assertThat(log.capacityBytes()).isEqualTo((long) log.chunkSize() * log.chunkCount());
    assertThat(log.usedBytes()).isLessThanOrEqualTo(log.capacityBytes());
    // A smaller entry still fits in the tail of the last chunk.
    assertThat(log.appendPending(SHARD, COLOR, SESSION, appended, Unpooled.EMPTY_BUFFER))
        .isNotEqualTo(LogStorage.NO_SPACE);
    log.flush();

    List<Entry> recovered = reopenAndRecover(4);

    assertThat(recovered).hasSize(appended + 1);
    assertThat(storage.appendPending(SHARD, COLOR, SESSION, 0, Unpooled.wrappedBuffer(bytes)))
        .isEqualTo(LogStorage.NO_SPACE);
  }

  @Test
  void shouldRejectPayloadLargerThanAChunk() {
    ChunkedLogStorage log = openFresh(4);
    ByteBuf tooLarge =
        Unpooled.wrappedBuffer(
            new byte[ChunkHeaderDescriptor.maxPayloadLength(log.chunkSize()) + 1]);

    assertThatThrownBy(() -> log.appendPending(SHARD, COLOR, SESSION, 0, tooLarge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not fit in a chunk");
  }

  @Test
  void shouldRequireRecoveryBeforeAppendingToAnExistingLog() {
    ChunkedLogStorage log = openFresh(4);
    append(log, 0, 3, 100);
    log.flush();
    log.close();
    storage = open(dir, 4, CHUNK_BYTES);

    assertThatThrownBy(() -> storage.appendPending(SHARD, COLOR, SESSION, 9, Unpooled.EMPTY_BUFFER))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("recover()");
  }

  @Test
  void shouldContinueAfterTheLastEntryOnReopenAndReplayBothGenerations() {
    ChunkedLogStorage log = openFresh(8);
    append(log, 0, 50, 3000);
    log.flush();
    reopenAndRecover(8);
    long[] second = append(storage, 50, 50, 3000);
    commitAll(storage, 50, second);
    storage.flush();

    List<Entry> recovered = reopenAndRecover(8);

    assertEntries(recovered, 0, 100, 3000);
    assertThat(recovered.get(99).sn()).isEqualTo(sn(99));
    assertThat(storage.usedBytes()).isEqualTo(usedAfter(recovered, storage.chunkSize()));
  }

  /**
   * Chunks fill in index order on a fresh log, with sequences from 1: all before the last entry's
   * chunk are full.
   */
  private static long usedAfter(List<Entry> entries, int chunkSize) {
    Entry last = entries.get(entries.size() - 1);
    return ((last.address() >>> 32) - 1) * chunkSize
        + (int) last.address()
        + PmEntryDescriptor.entryLength(last.payloadLength());
  }

  // ---- torn states, fabricated through the engine's own chunk memory ----

  /** Appends, commits and flushes {@code count} entries; returns their addresses. */
  private long[] durableEntries(int count, int maxLength) {
    long[] addresses = append(storage, 0, count, maxLength);
    commitAll(storage, 0, addresses);
    storage.flush();
    return addresses;
  }

  private ChunkMemory chunkOf(long address) {
    return ChunkAccess.chunkOf(storage, address);
  }

  /** Appends entry {@code seq} with a payload of {@code length}, flushed, and returns it. */
  private long appendFlushed(long seq, int length) {
    long address =
        storage.appendPending(
            SHARD, COLOR, SESSION, seq, Unpooled.wrappedBuffer(TestPayloads.bytes(seq, length)));
    storage.flush();
    return address;
  }

  private void assertRecoversExactly(int validCount, long tornAddress, int maxLength) {
    List<Entry> recovered = reopenAndRecover(4);
    assertEntries(recovered, 0, validCount, maxLength);
    // The next append lands exactly where the torn entry was.
    long next = appendFlushed(1000, 64);
    assertThat(next).isEqualTo(tornAddress);
    // And a later recovery sees the valid entries plus the new one, nothing stale.
    List<Entry> again = reopenAndRecover(4);
    assertThat(again).hasSize(validCount + 1);
    assertEntries(again.subList(0, validCount), 0, validCount, maxLength);
    assertThat(again.get(validCount).tokenSequence()).isEqualTo(1000);
    assertThat(again.get(validCount).payload()).isEqualTo(TestPayloads.bytes(1000, 64));
  }

  @Test
  void shouldRecoverToTheLastValidEntryAfterAHalfWrittenHeader() {
    openFresh(4);
    durableEntries(5, 500);
    long torn = appendFlushed(5, 400);
    // Only the first half of the header reached the media.
    chunkOf(torn).zero(ChunkAccess.offset(torn) + 16, PmEntryDescriptor.HEADER_LENGTH - 16 + 400);

    assertRecoversExactly(5, torn, 500);
  }

  @Test
  void shouldRecoverToTheLastValidEntryAfterAHalfWrittenPayload() {
    openFresh(4);
    durableEntries(5, 500);
    long torn = appendFlushed(5, 1000);
    chunkOf(torn).zero(ChunkAccess.offset(torn) + PmEntryDescriptor.PAYLOAD_OFFSET + 500, 500);

    assertRecoversExactly(5, torn, 500);
  }

  @Test
  void shouldHideACommittedEntryWhosePayloadNeverReachedTheMedia() {
    openFresh(4);
    durableEntries(5, 500);
    long torn = appendFlushed(5, 200);
    storage.commit(torn, sn(5));
    storage.flush();
    // The SN word is durable but the payload bytes are not what was written.
    ChunkMemory chunk = chunkOf(torn);
    int payloadAt = ChunkAccess.offset(torn) + PmEntryDescriptor.PAYLOAD_OFFSET;
    chunk.putLong(payloadAt + 64, ~chunk.getLong(payloadAt + 64));

    assertRecoversExactly(5, torn, 500);
  }

  @Test
  void shouldIgnoreAndEraseGarbageAfterTheTail() {
    openFresh(4);
    long[] addresses = durableEntries(5, 500);
    long tail = addresses[4] + PmEntryDescriptor.entryLength(TestPayloads.length(4, 500));
    ChunkMemory chunk = chunkOf(tail);
    for (int i = 0; i < 300; i += 8) {
      chunk.putLong(ChunkAccess.offset(tail) + 40 + i, 0xDEAD_BEEF_0000_0000L | i);
    }
    chunk.putInt(ChunkAccess.offset(tail), 12345); // an impossible length where the next entry goes

    assertRecoversExactly(5, tail, 500);
    ChunkMemory after = ChunkAccess.chunkOf(storage, tail);
    for (int i = 0; i < 300; i += 8) {
      int at = ChunkAccess.offset(tail) + (int) PmEntryDescriptor.entryLength(64) + i;
      assertThat(after.getLong(at)).as("garbage word %d erased", i).isZero();
    }
  }

  @Test
  void shouldNeverResurrectStaleValidEntriesAfterATornOne() {
    openFresh(4);
    // Ten entries of one size: once entry 5 is replaced by an entry of that same size, entries
    // 6..9 would sit exactly where a scan continues, CRCs intact, unless recovery erased them.
    long[] addresses = new long[10];
    for (int i = 0; i < 10; i++) {
      addresses[i] = appendFlushed(i, 64);
    }
    chunkOf(addresses[5])
        .putInt(ChunkAccess.offset(addresses[5]) + PmEntryDescriptor.CRC_OFFSET, 0);

    List<Entry> recovered = reopenAndRecover(4);
    assertThat(recovered).hasSize(5);
    long replacement = appendFlushed(1000, 64);
    assertThat(replacement).isEqualTo(addresses[5]);

    List<Entry> again = reopenAndRecover(4);
    assertThat(again).extracting(Entry::tokenSequence).containsExactly(0L, 1L, 2L, 3L, 4L, 1000L);
  }

  @Test
  void shouldKeepLaterChunksWhenAnEarlierChunkIsTorn() {
    openFresh(8);
    long[] addresses = append(storage, 0, 60, 3000);
    storage.flush();
    long firstChunk = ChunkAccess.chunkSequence(addresses[0]);
    int tornIndex = 3; // inside the first chunk
    assertThat(ChunkAccess.chunkSequence(addresses[tornIndex])).isEqualTo(firstChunk);
    int firstInSecondChunk = 0;
    while (ChunkAccess.chunkSequence(addresses[firstInSecondChunk]) == firstChunk) {
      firstInSecondChunk++;
    }
    ChunkMemory chunk = chunkOf(addresses[tornIndex]);
    chunk.putInt(ChunkAccess.offset(addresses[tornIndex]) + PmEntryDescriptor.CRC_OFFSET, 0);

    List<Entry> recovered = reopenAndRecover(8);

    List<Long> expected = new ArrayList<>();
    for (long seq = 0; seq < 60; seq++) {
      if (seq < tornIndex || seq >= firstInSecondChunk) {
        expected.add(seq);
      }
    }
    assertThat(recovered).extracting(Entry::tokenSequence).containsExactlyElementsOf(expected);
    // The writer continues in the last chunk, after its last entry.
    long next = appendFlushed(1000, 10);
    assertThat(next)
        .isEqualTo(addresses[59] + PmEntryDescriptor.entryLength(TestPayloads.length(59, 3000)));
  }

  // ---- trim and chunk reuse ----

  /** Appends and commits entries until the log is full; returns how many. */
  private static int fillCommitted(LogStorage log, long from, int length) {
    int count = 0;
    while (true) {
      long seq = from + count;
      long address =
          log.appendPending(
              SHARD, COLOR, SESSION, seq, Unpooled.wrappedBuffer(TestPayloads.bytes(seq, length)));
      if (address == LogStorage.NO_SPACE) {
        log.flush();
        return count;
      }
      log.commit(address, sn(seq));
      count++;
    }
  }

  @Test
  void shouldPersistTrimPointsAcrossReopenAndIgnoreLowerOnes() {
    ChunkedLogStorage log = openFresh(4);
    assertThat(log.trimPoint(COLOR)).isZero();
    log.trim(COLOR, sn(10));
    log.trim(COLOR + 1, 5);
    log.trim(COLOR, sn(4)); // lower: ignored

    reopenAndRecover(4);

    assertThat(storage.trimPoint(COLOR)).isEqualTo(sn(10));
    assertThat(storage.trimPoint(COLOR + 1)).isEqualTo(5);
    assertThat(storage.trimPoint(COLOR + 2)).isZero();
    storage.trim(COLOR, sn(12));
    reopenAndRecover(4);
    assertThat(storage.trimPoint(COLOR)).isEqualTo(sn(12));
  }

  @Test
  void shouldNotReplayCommittedEntriesAtOrBelowTheTrimPointButKeepPendingOnes() {
    ChunkedLogStorage log = openFresh(4);
    long[] addresses = append(log, 0, 20, 300);
    for (int i = 0; i < 20; i += 2) {
      log.commit(addresses[i], sn(i));
    }
    log.trim(COLOR, sn(9));

    List<Entry> recovered = reopenAndRecover(4);

    List<Long> expected = new ArrayList<>();
    for (long seq = 0; seq < 20; seq++) {
      if (seq % 2 == 1 || seq > 9) {
        expected.add(seq);
      }
    }
    assertThat(recovered).extracting(Entry::tokenSequence).containsExactlyElementsOf(expected);
    for (Entry entry : recovered) {
      assertThat(entry.address()).isEqualTo(addresses[(int) entry.tokenSequence()]);
      assertThat(entry.sn())
          .isEqualTo(entry.tokenSequence() % 2 == 0 ? sn(entry.tokenSequence()) : 0);
    }
  }

  @Test
  void shouldReuseChunksOnceEveryEntryIsTrimmedSoWritesContinuePastCapacity() {
    ChunkedLogStorage log = openFresh(4);
    long written = 0;
    long lastAddress = 0;
    long seq = 0;
    for (int round = 0; round < 5; round++) {
      int count = fillCommitted(log, seq, 1000);
      assertThat(count).as("round %d appends", round).isPositive();
      written += count * PmEntryDescriptor.entryLength(1000);
      long full = log.usedBytes();
      seq += count;
      log.trim(COLOR, sn(seq - 1));

      // Every sealed chunk is free again; only the open one is still in use.
      assertThat(log.usedBytes()).as("round %d used after trim", round).isLessThan(full);
      assertThat(log.usedBytes()).isLessThanOrEqualTo(log.chunkSize());
    }
    assertThat(written).as("bytes written").isGreaterThan(3 * log.capacityBytes());
    // Addresses keep increasing across reuse: a new entry is above every earlier one.
    long next = appendFlushed(seq, 10);
    assertThat(next).isGreaterThan(lastAddress);
    storage.commit(next, sn(seq));
    storage.flush();

    List<Entry> recovered = reopenAndRecover(4);

    assertThat(recovered).extracting(Entry::tokenSequence).containsExactly(seq);
    assertThat(recovered.get(0).address()).isEqualTo(next);
    assertThat(recovered.get(0).payload()).isEqualTo(TestPayloads.bytes(seq, 10));
  }

  @Test
  void shouldKeepChunksThatHoldPendingOrLiveEntries() {
    ChunkedLogStorage log = openFresh(4);
    long[] addresses = append(log, 0, 100, 3000); // three chunks
    assertThat(ChunkAccess.chunkSequence(addresses[99])).isEqualTo(3);
    for (int i = 0; i < 100; i++) {
      if (i != 5) {
        log.commit(addresses[i], sn(i));
      }
    }
    log.flush();
    long used = log.usedBytes();

    log.trim(COLOR, sn(99));

    // Entry 5 is pending in the first chunk: that chunk stays, the other sealed ones go.
    assertThat(log.usedBytes()).isLessThan(used);
    assertThat(log.usedBytes()).isGreaterThanOrEqualTo(log.chunkSize());
    assertThat(TestPayloads.copy(log.payload(addresses[5])))
        .isEqualTo(TestPayloads.bytes(5, TestPayloads.length(5, 3000)));
    log.commit(addresses[5], sn(5));
    log.trim(COLOR, sn(99) + 1);
    assertThat(log.usedBytes()).isLessThanOrEqualTo(log.chunkSize());
  }

  @Test
  void shouldNeverReplayEntriesOfAReusedChunksPreviousLife() {
    ChunkedLogStorage log = openFresh(4);
    // Equal-sized entries: the new life's entries sit exactly where the old ones were, so a stale
    // entry right after the last new one would pass a CRC that ignored the chunk sequence.
    int first = fillCommitted(log, 0, 64);
    log.trim(COLOR, sn(first - 1));
    int second = fillCommitted(log, first, 64); // fills the open chunk, then reuses freed ones
    log.trim(COLOR, sn(first + second - 1));
    long seq = first + second;
    long[] fresh = new long[3];
    for (int i = 0; i < 3; i++) {
      fresh[i] = appendFlushed(seq + i, 64);
    }
    long chunkStart = fresh[0] & ~0xFFFF_FFFFL;
    assertThat(fresh[0] - chunkStart)
        .as("the last chunk opened is a reused one, written from its start")
        .isLessThan(4L * PmEntryDescriptor.entryLength(64) + ChunkHeaderDescriptor.ENTRIES_OFFSET);

    List<Entry> recovered = reopenAndRecover(4);

    assertThat(recovered).extracting(Entry::tokenSequence).containsExactly(seq, seq + 1, seq + 2);
    assertThat(recovered).allSatisfy(e -> assertThat(e.sn()).isZero());
    assertThat(recovered).extracting(Entry::address).containsExactly(fresh[0], fresh[1], fresh[2]);
  }

  @Test
  void shouldKeepRetainedPayloadBytesIntactWhileTheirChunkWouldBeReused() {
    ChunkedLogStorage log = openFresh(4);
    long[] addresses = append(log, 0, 1, 2000);
    log.commit(addresses[0], sn(0));
    byte[] expected = TestPayloads.copy(log.payload(addresses[0]));
    ByteBuf held = log.retainedPayload(addresses[0]);
    try {
      long seq = 1;
      for (int round = 0; round < 6; round++) {
        int count = fillCommitted(log, seq, 2000);
        seq += count;
        log.trim(COLOR, sn(seq - 1)); // entry 0 is dead too
        assertThat(TestPayloads.copy(held)).as("round %d", round).isEqualTo(expected);
      }
    } finally {
      held.release();
    }
    // Released: its chunk is reclaimed and writing goes on.
    log.flush();
    assertThat(fillCommitted(log, 10_000, 2000)).isPositive();
  }
}
