package io.flexlog.replica.storage.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.TierUsage;
import io.flexlog.replica.storage.Entry;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.TestPayloads;
import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.segment.SegmentDescriptor;
import io.flexlog.replica.storage.segment.SegmentStore;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tiered engine (cache, PM, SSD segments) over each PM engine: reads through every tier,
 * tiering under load, the hand-back of the PM free step to the owner, crashes during tiering and
 * torn segment files. Most tests run the tiering thread's work by hand ({@link ManualExecutor}) to
 * fabricate exact crash points; the load test uses the real tiering thread.
 */
abstract class TieredLogStorageTest {
  static final int SHARD = 4;
  static final int COLOR = 6;
  static final long SESSION = 0x7AB1EL;
  static final int MAX_PAYLOAD = 2000;
  static final long CHUNK_BYTES = 128 * 1024;
  static final double WATERMARK = 0.5;
  static final long SEGMENT_BYTES = 256 * 1024;

  @TempDir Path dir;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final ManualExecutor tieringThread = new ManualExecutor();
  final long[] clockNs = {0};
  TieredLogStorage storage;
  private long[] addresses = new long[1024];
  private int written;

  /** Opens the engine's PM log in {@code pmDir}: a few MiB of 128 KiB chunks. */
  abstract TierableLog openPm(Path pmDir);

  @AfterEach
  void closeStorage() {
    if (storage != null) {
      storage.close();
    }
  }

  private Path segmentDir() {
    return dir.resolve("segments");
  }

  private TieredStorageConfig config() {
    return new TieredStorageConfig(256 * 1024, WATERMARK, segmentDir(), SEGMENT_BYTES);
  }

  private TieredLogStorage openManual() {
    storage =
        TieredLogStorage.open(
            openPm(dir.resolve("pm")),
            config(),
            registry,
            Tags.of("node", "1"),
            tieringThread,
            () -> clockNs[0]);
    return storage;
  }

  private TieredLogStorage openThreaded() {
    storage =
        TieredLogStorage.open(openPm(dir.resolve("pm")), config(), registry, Tags.of("node", "1"));
    return storage;
  }

  /** A crash and restart: tiering work not run yet never runs. */
  private List<Entry> reopenManual() {
    tieringThread.discardAll();
    storage.close();
    openManual();
    return Entry.recoverAll(storage);
  }

  static long sn(long seq) {
    return (1L << 32) | (seq + 1);
  }

  static byte[] payload(long seq) {
    return TestPayloads.bytes(seq, TestPayloads.length(seq, MAX_PAYLOAD));
  }

  /** Appends and commits the next entry; false when PM has no room. */
  private boolean tryWriteOne() {
    long seq = written;
    long address =
        storage.appendPending(SHARD, COLOR, SESSION, seq, Unpooled.wrappedBuffer(payload(seq)));
    if (address == LogStorage.NO_SPACE) {
      return false;
    }
    storage.commit(address, sn(seq));
    if (written == addresses.length) {
      addresses = Arrays.copyOf(addresses, written * 2);
    }
    addresses[written++] = address;
    if (seq % 16 == 15) {
      storage.flush();
    }
    return true;
  }

  private void writeCommitted(int count) {
    for (int i = 0; i < count; i++) {
      assertThat(tryWriteOne()).as("append %d", written).isTrue();
    }
    storage.flush();
  }

  /** Writes until PM use passes {@code fraction} of its capacity. */
  private void writeUntilUsedAbove(double fraction) {
    while (storage.usedBytes() <= fraction * storage.capacityBytes()) {
      writeCommitted(16);
    }
  }

  /** Runs the tiering thread's work and applies it until PM is back under its watermark. */
  private void drainTiering() {
    do {
      tieringThread.runAll();
      storage.flush();
    } while (storage.isTiering());
  }

  private void assertReadable(int from, int to) {
    for (int seq = from; seq < to; seq++) {
      long address = addresses[seq];
      byte[] expected = payload(seq);
      assertThat(storage.payloadLength(address)).as("length of %d", seq).isEqualTo(expected.length);
      assertThat(TestPayloads.copy(storage.payload(address)))
          .as("payload of %d", seq)
          .isEqualTo(expected);
      ByteBuf retained = storage.retainedPayload(address);
      try {
        assertThat(TestPayloads.copy(retained))
            .as("retained payload of %d", seq)
            .isEqualTo(expected);
      } finally {
        retained.release();
      }
    }
  }

  /** Every expected entry exactly once, at its original address, with its SN and bytes. */
  private void assertRecoveredExactly(List<Entry> recovered, Set<Long> expectedSeqs) {
    Set<Long> seen = new LinkedHashSet<>();
    for (Entry entry : recovered) {
      long seq = entry.tokenSequence();
      assertThat(seen.add(seq)).as("entry %d recovered once", seq).isTrue();
      assertThat(entry.address()).as("address of %d", seq).isEqualTo(addresses[(int) seq]);
      assertThat(entry.sn()).as("SN of %d", seq).isEqualTo(sn(seq));
      assertThat(entry.payload()).as("payload of %d", seq).isEqualTo(payload(seq));
      assertThat(entry.shardId()).isEqualTo(SHARD);
      assertThat(entry.colorId()).isEqualTo(COLOR);
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(expectedSeqs);
  }

  private Set<Long> seqs(long from, long to) {
    return LongStream.range(from, to).boxed().collect(Collectors.toCollection(LinkedHashSet::new));
  }

  private List<Path> segmentFiles() throws IOException {
    try (Stream<Path> files = Files.list(segmentDir())) {
      return files
          .filter(f -> f.toString().endsWith(SegmentDescriptor.FILE_SUFFIX))
          .sorted()
          .toList();
    }
  }

  private Map<Long, Long> seqByAddress() {
    Map<Long, Long> map = new HashMap<>();
    for (int seq = 0; seq < written; seq++) {
      map.put(addresses[seq], (long) seq);
    }
    return map;
  }

  /** Offsets of the entries of a segment file, by walking its entries (before damaging it). */
  private static List<long[]> entriesOf(Path file) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    long entriesEnd =
        bytes.getLong(
            bytes.capacity()
                - SegmentDescriptor.FOOTER_LENGTH
                + SegmentDescriptor.FOOTER_ENTRIES_END_OFFSET);
    List<long[]> entries = new ArrayList<>(); // {offset, address}
    int at = SegmentDescriptor.HEADER_LENGTH;
    while (at < entriesEnd) {
      entries.add(new long[] {at, bytes.getLong(at + SegmentDescriptor.ENTRY_ADDRESS_OFFSET)});
      at += (int) SegmentDescriptor.entryLength(bytes.getInt(at));
    }
    return entries;
  }

  private static void truncate(Path file, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(length);
    }
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, offset);
      one.put(0, (byte) ~one.get(0)).rewind();
      channel.write(one, offset);
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private double counter(String name) {
    return registry.get(name).counter().count();
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  // ---------------------------------------------------------------- reads through the tiers

  @Test
  void shouldServeReadsFromCachePmAndSsdWithIdenticalBytes() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    long usedBefore = storage.usedBytes();
    assertThat(storage.isTiering()).isTrue();

    drainTiering();

    assertThat(storage.isTiering()).isFalse();
    assertThat(storage.segmentCount()).isPositive();
    assertThat(segmentFiles()).hasSize(storage.segmentCount());
    assertThat(storage.usedBytes()).isLessThan(usedBefore);
    assertThat(storage.usedBytes())
        .isLessThanOrEqualTo((long) (WATERMARK * storage.capacityBytes()));
    long fileBytes = 0;
    for (Path file : segmentFiles()) {
      fileBytes += Files.size(file);
    }
    assertThat(storage.ssdBytes()).isEqualTo(fileBytes);
    double hitsBefore = counter(TierMetrics.CACHE_HITS);
    double missesBefore = counter(TierMetrics.CACHE_MISSES);

    assertReadable(0, written); // the oldest from SSD, the newest from the cache

    double hits = counter(TierMetrics.CACHE_HITS) - hitsBefore;
    double misses = counter(TierMetrics.CACHE_MISSES) - missesBefore;
    assertThat(hits + misses).isEqualTo(2.0 * written);
    assertThat(misses).as("entries older than the cache").isPositive();
    assertThat(hits).as("second reads and recent entries").isPositive();
    assertThat(gauge(TierMetrics.SSD_SEGMENTS)).isEqualTo(storage.segmentCount());
    assertThat(gauge(TierMetrics.SSD_BYTES)).isEqualTo(storage.ssdBytes());
    assertThat(gauge(TierMetrics.PM_USED)).isEqualTo(storage.usedBytes());
    assertThat(gauge(TierMetrics.PM_CAPACITY)).isEqualTo(storage.capacityBytes());
    assertThat(counter(TierMetrics.TIERING_MOVES)).isEqualTo(storage.segmentCount());
  }

  @Test
  void shouldTierTenTimesThePmBudgetKeepPmBoundedAndReadEveryRecordBack() throws Exception {
    openThreaded();
    Entry.recoverAll(storage);
    long capacity = storage.capacityBytes();
    long payloadBytes = 0;
    long maxUsed = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (payloadBytes < 10 * capacity) {
      assertThat(System.nanoTime()).as("writing 10x the PM budget").isLessThan(deadline);
      if (!tryWriteOne()) {
        storage.flush(); // applies finished tiering; the owner never waits for it
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        continue;
      }
      payloadBytes += payload(written - 1).length;
      maxUsed = Math.max(maxUsed, storage.usedBytes());
    }
    long highWatermark = (long) (WATERMARK * capacity);
    await(
        "tiering to settle",
        () -> {
          storage.flush();
          return !storage.isTiering() && storage.usedBytes() <= highWatermark;
        });

    assertThat(maxUsed).isLessThanOrEqualTo(capacity);
    assertThat(storage.usedBytes()).isLessThanOrEqualTo(highWatermark);
    assertThat(storage.ssdBytes()).isGreaterThan(8 * capacity);
    assertThat(storage.segmentCount()).isEqualTo(segmentFiles().size());
    assertReadable(0, written);

    storage.close();
    openThreaded();
    assertRecoveredExactly(Entry.recoverAll(storage), seqs(0, written));
    assertReadable(0, written);

    // Trim the older half: whole segments go, their files are deleted, the rest stays readable.
    int segmentsBefore = storage.segmentCount();
    long ssdBefore = storage.ssdBytes();
    List<Path> filesBefore = segmentFiles();
    int half = written / 2;
    storage.trim(COLOR, sn(half));
    assertThat(storage.segmentCount()).isLessThan(segmentsBefore);
    assertThat(storage.ssdBytes()).isLessThan(ssdBefore / 2 + SEGMENT_BYTES + 4096);
    await(
        "trimmed segment files deleted",
        () -> {
          try {
            return segmentFiles().size() == storage.segmentCount();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
    assertThat(filesBefore).containsAll(segmentFiles());
    assertReadable(half + 1, written);

    storage.close();
    openThreaded();
    assertRecoveredExactly(Entry.recoverAll(storage), seqs(half + 1, written));
  }

  @Test
  void shouldCountRecordsAndBytesPerTierThroughTieringAndRecovery() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);

    TierUsage inPm = storage.tierUsage();
    assertThat(inPm.pmRecords()).isEqualTo(written);
    assertThat(inPm.pmBytes()).isEqualTo(storage.usedBytes());
    assertThat(inPm.pmCapacityBytes()).isEqualTo(storage.capacityBytes());
    assertThat(inPm.ssdRecords()).isZero();
    assertThat(inPm.ssdSegments()).isZero();
    assertThat(inPm.cacheRecords()).isEqualTo(storage.cache().records()).isPositive();
    assertThat(inPm.cacheBytes()).isEqualTo(storage.cache().usedBytes()).isPositive();

    drainTiering();
    TierUsage tiered = storage.tierUsage();
    assertThat(tiered.ssdRecords()).isPositive();
    assertThat(tiered.pmRecords()).isLessThan(written);
    assertThat(tiered.pmRecords() + tiered.ssdRecords()).isEqualTo(written);
    assertThat(tiered.ssdBytes()).isEqualTo(storage.ssdBytes()).isPositive();
    assertThat(tiered.ssdSegments()).isEqualTo(storage.segmentCount());
    assertThat(tiered.pmBytes()).isEqualTo(storage.usedBytes()).isLessThan(inPm.pmBytes());

    reopenManual();
    TierUsage recovered = storage.tierUsage();
    assertThat(recovered.ssdRecords()).isEqualTo(tiered.ssdRecords());
    assertThat(recovered.pmRecords()).isEqualTo(tiered.pmRecords());
    assertThat(recovered.cacheRecords()).isEqualTo(storage.cache().records());
  }

  @Test
  void shouldLeaveTheOwnerRunningWhileASegmentIsWrittenAndFreePmOnlyInItsFlush() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    assertThat(storage.isTiering()).isTrue();
    long used = storage.usedBytes();

    writeCommitted(32); // appends, commits and flushes go on while the copy is pending
    assertThat(TestPayloads.copy(storage.payload(addresses[0]))).isEqualTo(payload(0));
    tieringThread.runAll(); // the copy and fsync finish on "the tiering thread"
    assertThat(segmentFiles()).hasSize(1);
    assertThat(storage.segmentCount()).as("not applied before the owner's flush").isZero();
    assertThat(storage.usedBytes()).isGreaterThanOrEqualTo(used);

    storage.flush();

    assertThat(storage.segmentCount()).isEqualTo(1);
    assertThat(storage.usedBytes()).isLessThan(used);
    assertReadable(0, written);
  }

  @Test
  void shouldApplyAFinishedSegmentOnTheOwnersExecutorWhenIdle() throws Exception {
    openManual();
    ManualExecutor ownerLoop = new ManualExecutor();
    storage.wakeOwnerWith(ownerLoop);
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    long used = storage.usedBytes();

    tieringThread.runAll();
    assertThat(ownerLoop.pending()).isEqualTo(1);
    ownerLoop.runAll(); // no flush: the owner is idle

    assertThat(storage.segmentCount()).isPositive();
    assertThat(storage.usedBytes()).isLessThan(used);
    assertThat(gauge(TierMetrics.SSD_SEGMENTS)).isEqualTo(storage.segmentCount());
    // Still above the watermark: the catch-up started the next segment by itself.
    while (storage.isTiering()) {
      tieringThread.runAll();
      ownerLoop.runAll();
    }
    assertThat(storage.usedBytes())
        .isLessThanOrEqualTo((long) (WATERMARK * storage.capacityBytes()));
    assertReadable(0, written);
  }

  @Test
  void shouldTierWhenPmIsFullEvenWithAWatermarkOfOne() {
    storage =
        TieredLogStorage.open(
            openPm(dir.resolve("pm")),
            config().withPmHighWatermark(1.0),
            registry,
            Tags.of("node", "1"),
            tieringThread,
            () -> clockNs[0]);
    Entry.recoverAll(storage);
    while (tryWriteOne()) {
      assertThat(tieringThread.pending()).as("no tiering below a watermark of 1").isZero();
    }
    assertThat(tieringThread.pending()).as("a full PM starts tiering").isEqualTo(1);

    tieringThread.runAll();

    assertThat(tryWriteOne()).as("the append after the segment is written").isTrue();
    assertThat(storage.segmentCount()).isEqualTo(1);
    assertReadable(0, written);
  }

  @Test
  void shouldHoldTieringAtAnUncommittedEntryAndResumeOnceItCommits() {
    openManual();
    Entry.recoverAll(storage);
    // A record whose SN has not come back yet, in the oldest chunk, in a color of its own.
    int otherColor = COLOR + 1;
    byte[] straggler = payload(999_999);
    long pending =
        storage.appendPending(SHARD, otherColor, SESSION + 1, 0, Unpooled.wrappedBuffer(straggler));
    while (tryWriteOne()) {
      tieringThread.runAll();
      storage.flush();
    }

    assertThat(storage.segmentCount()).as("nothing tiered past the pending entry").isZero();
    assertThat(storage.isTiering()).isFalse();
    assertThat(tieringThread.pending()).isZero();
    assertThat(tryWriteOne()).as("PM stays full: appends are refused, not lost").isFalse();

    long stragglerSn = (1L << 32) | 1;
    storage.commit(pending, stragglerSn);
    storage.flush(); // the SN is durable: the oldest chunk may move now

    assertThat(storage.isTiering()).as("tiering resumes at the committed chunk").isTrue();
    drainTiering();
    assertThat(storage.segmentCount()).isPositive();
    assertThat(storage.usedBytes())
        .isLessThanOrEqualTo((long) (WATERMARK * storage.capacityBytes()));
    assertThat(tryWriteOne()).isTrue();
    assertThat(TestPayloads.copy(storage.payload(pending))).isEqualTo(straggler);
    assertReadable(0, written);

    List<Entry> recovered = reopenManual();
    assertThat(recovered)
        .filteredOn(entry -> entry.colorId() == otherColor)
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.address()).isEqualTo(pending);
              assertThat(entry.sn()).isEqualTo(stragglerSn);
              assertThat(entry.payload()).isEqualTo(straggler);
            });
  }

  // ---------------------------------------------------------------- crashes during tiering

  @Test
  void shouldRecoverEveryEntryOnceWhenTheSegmentWasWrittenButPmNotFreed() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    tieringThread.runAll(); // segment durable, PM chunks not freed: the crash comes first
    long used = storage.usedBytes();
    assertThat(segmentFiles()).hasSize(1);

    List<Entry> recovered = reopenManual();

    assertRecoveredExactly(recovered, seqs(0, written));
    assertThat(storage.segmentCount()).as("the complete segment is authoritative").isEqualTo(1);
    assertThat(storage.usedBytes()).as("PM copies freed").isLessThan(used);
    writeCommitted(40);
    assertRecoveredExactly(reopenManual(), seqs(0, written));
    assertReadable(0, written);
  }

  @Test
  void shouldRecoverEveryEntryOnceFromAHalfWrittenSegment() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    tieringThread.runAll();
    Path file = segmentFiles().get(0);
    truncate(file, Files.size(file) / 2); // the crash hit mid-segment

    List<Entry> recovered = reopenManual();

    assertRecoveredExactly(recovered, seqs(0, written));
    assertThat(segmentFiles()).as("the torn segment is removed").isEmpty();
    assertThat(storage.segmentCount()).isZero();
    // Tiering starts over and the next segment is whole.
    writeCommitted(16);
    tieringThread.runAll();
    storage.flush();
    assertThat(storage.segmentCount()).isEqualTo(1);
    assertRecoveredExactly(reopenManual(), seqs(0, written));
  }

  enum Torn {
    HALF_HEADER,
    HALF_ENTRY,
    BAD_CRC,
    MISSING_FOOTER
  }

  /**
   * Damages the segment; returns the index of its first entry that is lost (entries.size(): none).
   */
  private static int damage(Path file, Torn torn, List<long[]> entries) throws IOException {
    int victim = entries.size() / 2;
    long at = entries.get(victim)[0];
    switch (torn) {
      case HALF_HEADER -> {
        truncate(file, SegmentDescriptor.HEADER_LENGTH / 2);
        return 0;
      }
      case HALF_ENTRY -> {
        truncate(file, at + SegmentDescriptor.ENTRY_HEADER_LENGTH / 2);
        return victim;
      }
      case BAD_CRC -> {
        flipByte(file, at + SegmentDescriptor.ENTRY_SN_OFFSET);
        return victim;
      }
      case MISSING_FOOTER -> {
        truncate(file, Files.size(file) - SegmentDescriptor.FOOTER_LENGTH);
        return entries.size();
      }
    }
    throw new IllegalArgumentException(torn.name());
  }

  @ParameterizedTest
  @EnumSource(Torn.class)
  void shouldTakeEntriesFromPmWhenTheSegmentIsTornAndPmStillHoldsThem(Torn torn) throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    tieringThread.runAll();
    Path file = segmentFiles().get(0);
    damage(file, torn, entriesOf(file));

    List<Entry> recovered = reopenManual();

    assertRecoveredExactly(recovered, seqs(0, written));
    assertThat(Files.exists(file)).isFalse();
    assertThat(Files.exists(file.resolveSibling(file.getFileName() + SegmentStore.DAMAGED_SUFFIX)))
        .isFalse();
    assertReadable(0, written);
  }

  @ParameterizedTest
  @EnumSource(Torn.class)
  void shouldRecoverADamagedSegmentToItsLastValidEntryWhenPmNoLongerHoldsIt(Torn torn)
      throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    tieringThread.runAll();
    storage.flush(); // PM chunks freed: the segment is the only copy
    writeCommitted(20);
    Path file = segmentFiles().get(0);
    List<long[]> entries = entriesOf(file);
    int firstLost = damage(file, torn, entries);

    List<Entry> recovered = reopenManual();

    Map<Long, Long> seqOf = seqByAddress();
    Set<Long> expected = seqs(0, written);
    for (int i = firstLost; i < entries.size(); i++) {
      expected.remove(seqOf.get(entries.get(i)[1]));
    }
    assertRecoveredExactly(recovered, expected);
    if (torn == Torn.HALF_HEADER) {
      assertThat(storage.segmentCount()).isZero();
      assertThat(file.resolveSibling(file.getFileName() + SegmentStore.DAMAGED_SUFFIX)).exists();
    } else {
      assertThat(storage.segmentCount()).isEqualTo(1);
    }
    for (long seq : expected) {
      assertThat(TestPayloads.copy(storage.payload(addresses[(int) seq])))
          .as("payload of %d", seq)
          .isEqualTo(payload(seq));
    }
    // Writing, tiering and a second recovery keep exactly the same entries plus the new ones.
    int before = written;
    writeUntilUsedAbove(0.6);
    tieringThread.runAll();
    storage.flush();
    expected.addAll(seqs(before, written));
    assertRecoveredExactly(reopenManual(), expected);
  }

  // ---------------------------------------------------------------- trim, failures, buffers

  @Test
  void shouldDeleteSegmentsWhoseEntriesAreAllTrimmedAndNotReplayThem() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    drainTiering();
    writeUntilUsedAbove(0.6);
    drainTiering();
    int segments = storage.segmentCount();
    assertThat(segments).isGreaterThanOrEqualTo(2);
    Path first = segmentFiles().get(0);
    long lastInFirst = 0;
    Map<Long, Long> seqOf = seqByAddress();
    for (long[] entry : entriesOf(first)) {
      lastInFirst = Math.max(lastInFirst, seqOf.get(entry[1]));
    }
    long ssd = storage.ssdBytes();

    storage.trim(COLOR, sn(lastInFirst));

    assertThat(storage.segmentCount()).isEqualTo(segments - 1);
    assertThat(storage.ssdBytes()).isEqualTo(ssd - Files.size(first));
    assertThat(storage.trimPoint(COLOR)).isEqualTo(sn(lastInFirst));
    tieringThread.runAll(); // the deletion runs off the owner thread
    assertThat(first).doesNotExist();
    assertThat(segmentFiles()).hasSize(segments - 1);
    assertRecoveredExactly(reopenManual(), seqs(lastInFirst + 1, written));
    assertThat(storage.trimPoint(COLOR)).isEqualTo(sn(lastInFirst));
  }

  @Test
  void shouldKeepPmChunksAndRetryLaterWhenWritingASegmentFails() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    Files.delete(segmentDir());
    Files.writeString(segmentDir(), "not a directory");
    writeUntilUsedAbove(0.6);
    tieringThread.runAll(); // fails: the segment directory is a file
    storage.flush();
    assertThat(storage.isTiering()).isFalse();
    assertThat(storage.segmentCount()).isZero();
    storage.flush();
    assertThat(tieringThread.pending()).as("no retry before its delay").isZero();

    Files.delete(segmentDir());
    Files.createDirectory(segmentDir());
    clockNs[0] += TimeUnit.SECONDS.toNanos(2);
    storage.flush();
    tieringThread.runAll();
    storage.flush();

    assertThat(storage.segmentCount()).isEqualTo(1);
    assertReadable(0, written);
    assertRecoveredExactly(reopenManual(), seqs(0, written));
  }

  /** Writes until records are in every tier (SSD, PM, cache); returns the records cached. */
  private long fillEveryTier() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeUntilUsedAbove(0.6);
    drainTiering();
    assertThat(storage.segmentCount()).isPositive();
    return storage.cache().records();
  }

  @Test
  void shouldScanEveryTierWithoutFillingTheCacheAndKeepScannedViewsValid() throws Exception {
    long cachedRecords = fillEveryTier();
    for (int pass = 0; pass < 2; pass++) {
      double hitsBefore = counter(TierMetrics.CACHE_HITS);
      double missesBefore = counter(TierMetrics.CACHE_MISSES);
      for (int seq = 0; seq < written; seq++) {
        ByteBuf scanned = storage.scanPayload(addresses[seq]);
        try {
          assertThat(TestPayloads.copy(scanned)).as("scan of %d", seq).isEqualTo(payload(seq));
        } finally {
          scanned.release();
        }
      }
      double hits = counter(TierMetrics.CACHE_HITS) - hitsBefore;
      double misses = counter(TierMetrics.CACHE_MISSES) - missesBefore;
      assertThat(hits + misses).isEqualTo(written);
      assertThat(hits).as("pass %d: the newest entries, still cached", pass).isPositive();
      // Nothing the scan read was added: the second pass misses exactly as often as the first.
      assertThat(hits).as("pass %d: hits", pass).isEqualTo((double) cachedRecords);
      assertThat(storage.cache().records()).isEqualTo(cachedRecords);
    }

    int olderSeq = written - 1 - (int) cachedRecords; // just older than the cached ones
    ByteBuf fromSsd = storage.scanPayload(addresses[0]);
    ByteBuf older = storage.scanPayload(addresses[olderSeq]);
    try {
      storage.trim(COLOR, sn(written - 1));
      tieringThread.runAll(); // segment files deleted
      writeUntilUsedAbove(0.6); // chunks and cache blocks reused
      drainTiering();
      assertThat(TestPayloads.copy(fromSsd)).isEqualTo(payload(0));
      assertThat(TestPayloads.copy(older)).isEqualTo(payload(olderSeq));
    } finally {
      fromSsd.release();
      older.release();
    }
  }

  @Test
  void shouldCopyScannedPayloadsFromEveryTierWithoutFillingTheCache() throws Exception {
    long cachedRecords = fillEveryTier();
    ByteBuf dst = Unpooled.buffer();
    try {
      double hitsBefore = counter(TierMetrics.CACHE_HITS);
      for (int seq = 0; seq < written; seq++) {
        int before = dst.writerIndex();
        int length = storage.scanCopy(addresses[seq], dst, Integer.MAX_VALUE);
        assertThat(length).isEqualTo(payload(seq).length);
        byte[] copy = new byte[length];
        dst.getBytes(before, copy);
        assertThat(copy).as("copy of %d", seq).isEqualTo(payload(seq));
        // Too long to copy: nothing is appended and the length comes back encoded.
        assertThat(storage.scanCopy(addresses[seq], dst, length)).isEqualTo(-1 - length);
        assertThat(dst.writerIndex()).isEqualTo(before + length);
      }
      assertThat(counter(TierMetrics.CACHE_HITS) - hitsBefore).isEqualTo((double) cachedRecords);
      assertThat(storage.cache().records()).isEqualTo(cachedRecords);
    } finally {
      dst.release();
    }
  }

  @Test
  void shouldKeepRetainedPayloadsValidThroughEvictionTieringAndTrim() throws Exception {
    openManual();
    Entry.recoverAll(storage);
    writeCommitted(4);
    ByteBuf fromCache = storage.retainedPayload(addresses[0]);
    ByteBuf fromPm = storage.retainedPayload(addresses[1]); // cached too: a cache slice
    try {
      writeUntilUsedAbove(0.6); // pushes everything out of the 256 KiB cache
      tieringThread.runAll();
      storage.flush(); // entries 0 and 1 now only on SSD
      ByteBuf fromSsd = storage.retainedPayload(addresses[2]);
      try {
        storage.trim(COLOR, sn(written - 1));
        tieringThread.runAll(); // segment files deleted
        writeCommitted(300); // the cache blocks get reused

        assertThat(TestPayloads.copy(fromCache)).isEqualTo(payload(0));
        assertThat(TestPayloads.copy(fromPm)).isEqualTo(payload(1));
        assertThat(TestPayloads.copy(fromSsd)).isEqualTo(payload(2));
      } finally {
        fromSsd.release();
      }
    } finally {
      fromCache.release();
      fromPm.release();
    }
    assertThat(fromCache.refCnt()).isZero();
  }
}
