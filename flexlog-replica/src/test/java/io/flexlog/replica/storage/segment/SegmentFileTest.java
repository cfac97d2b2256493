package io.flexlog.replica.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TrimPoints;
import io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor;
import io.flexlog.replica.storage.chunk.PmEntryDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The segment file layout as {@link SegmentWriter} writes it and {@link Segment} reads it. */
class SegmentFileTest {
  @TempDir Path dir;
  private final SegmentWriter writer = new SegmentWriter();
  private final CRC32C crc = new CRC32C();

  /** One PM entry to put in a chunk image. */
  private record PmEntry(
      int color, long sn, long session, long sequence, int shard, byte[] payload) {}

  private static byte[] payload(long seed, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (seed * 131 + i);
    }
    return bytes;
  }

  /** A chunk image in the PM entry layout; returns it and the address of each entry. */
  private static ChunkImage image(long sequence, List<PmEntry> entries, List<Long> addresses) {
    long size = ChunkHeaderDescriptor.ENTRIES_OFFSET;
    for (PmEntry e : entries) {
      size += PmEntryDescriptor.entryLength(e.payload().length);
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    int at = ChunkHeaderDescriptor.ENTRIES_OFFSET;
    for (PmEntry e : entries) {
      buffer.putInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET, e.payload().length);
      buffer.putLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET, e.session());
      buffer.putLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET, e.sequence());
      buffer.putInt(at + PmEntryDescriptor.COLOR_OFFSET, e.color());
      buffer.putInt(at + PmEntryDescriptor.SHARD_OFFSET, e.shard());
      buffer.putLong(at + PmEntryDescriptor.SN_OFFSET, e.sn());
      buffer.put(at + PmEntryDescriptor.PAYLOAD_OFFSET, e.payload());
      addresses.add((sequence << 32) | at);
      at += (int) PmEntryDescriptor.entryLength(e.payload().length);
    }
    return new ChunkImage(sequence, buffer);
  }

  private static List<PmEntry> entries(int count, int color, long firstSn, int maxLength) {
    List<PmEntry> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(
          new PmEntry(
              color, firstSn + i, 77, firstSn + i, 2, payload(firstSn + i, i * 37 % maxLength)));
    }
    return list;
  }

  private static byte[] bytes(ByteBuf view) {
    return ByteBufUtil.getBytes(view, view.readerIndex(), view.readableBytes(), true);
  }

  /** How many mappings of {@code file} this process has ({@code /proc/self/maps}). */
  private static long mappings(Path file) throws Exception {
    String name = file.toAbsolutePath().toString();
    return Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .filter(line -> line.contains(name))
        .count();
  }

  @Test
  void shouldUnmapATrimmedSegmentWhenItsLastRetainedViewIsReleasedNotAtAGarbageCollection()
      throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/maps")));
    List<Long> addresses = new ArrayList<>();
    List<PmEntry> entries = entries(5, 1, 100, 500);
    Segment written =
        writer.write(dir, 7, 7, List.of(image(7, entries, addresses)), TrimPoints.NONE);
    Path file = written.file();
    SegmentStore store = new SegmentStore(dir);
    store.add(written);
    ByteBuf view = store.payload(addresses.get(1)).retain();
    assertThat(mappings(file)).isEqualTo(1);

    List<Path> dead = store.removeTrimmed(TrimPoints.of(new int[] {1}, new long[] {104}, 1));
    assertThat(dead).containsExactly(file);
    dead.forEach(SegmentStore::delete);

    assertThat(file).doesNotExist();
    assertThat(mappings(file)).as("the retained view keeps it mapped").isEqualTo(1);
    assertThat(bytes(view)).isEqualTo(entries.get(1).payload());
    view.release();
    assertThat(mappings(file)).as("unmapped with the last view").isZero();
  }

  @Test
  void shouldUnmapATrimmedSegmentAtOnceWhenNoViewIsRetained() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/maps")));
    List<Long> addresses = new ArrayList<>();
    Segment written =
        writer.write(
            dir, 9, 9, List.of(image(9, entries(3, 2, 10, 100), addresses)), TrimPoints.NONE);
    SegmentStore store = new SegmentStore(dir);
    store.add(written);
    assertThat(store.payload(addresses.get(0))).isNotNull();

    store.removeTrimmed(TrimPoints.of(new int[] {2}, new long[] {12}, 1));

    assertThat(mappings(written.file())).isZero();
    assertThatThrownBy(() -> written.verifiedPayload(0, crc))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was released");
  }

  @Test
  void shouldWriteTheDescribedLayoutAndReadItBackComplete() throws Exception {
    List<Long> addresses = new ArrayList<>();
    List<PmEntry> first = entries(20, 1, 100, 500);
    List<PmEntry> second = entries(10, 2, 5, 500);
    ChunkImage a = image(7, first, addresses);
    ChunkImage b = image(8, second, addresses);

    Segment written = writer.write(dir, 7, 8, List.of(a, b), TrimPoints.NONE);

    Path file = dir.resolve("segment-0000000000000007.seg");
    assertThat(written.file()).isEqualTo(file);
    ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(raw.getLong(SegmentDescriptor.MAGIC_OFFSET)).isEqualTo(SegmentDescriptor.MAGIC);
    assertThat(
            new String(Files.readAllBytes(file), 0, 8, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("FLXLSEGM");
    assertThat(raw.getInt(SegmentDescriptor.VERSION_OFFSET)).isEqualTo(1);
    assertThat(raw.getLong(SegmentDescriptor.FIRST_SEQUENCE_OFFSET)).isEqualTo(7);
    assertThat(raw.getLong(SegmentDescriptor.LAST_SEQUENCE_OFFSET)).isEqualTo(8);
    int at = SegmentDescriptor.HEADER_LENGTH;
    PmEntry e0 = first.get(0);
    assertThat(raw.getInt(at + SegmentDescriptor.ENTRY_LENGTH_OFFSET))
        .isEqualTo(e0.payload().length);
    assertThat(raw.getLong(at + SegmentDescriptor.ENTRY_ADDRESS_OFFSET))
        .isEqualTo(addresses.get(0));
    assertThat(raw.getLong(at + SegmentDescriptor.ENTRY_SN_OFFSET)).isEqualTo(100);
    assertThat(raw.getLong(at + SegmentDescriptor.ENTRY_TOKEN_SESSION_OFFSET)).isEqualTo(77);
    assertThat(raw.getInt(at + SegmentDescriptor.ENTRY_COLOR_OFFSET)).isEqualTo(1);
    assertThat(raw.getInt(at + SegmentDescriptor.ENTRY_SHARD_OFFSET)).isEqualTo(2);
    assertThat(raw.getInt(at + SegmentDescriptor.ENTRY_CRC_OFFSET))
        .isEqualTo(Segment.entryCrc(raw.duplicate(), at, e0.payload().length, crc));
    int footer = raw.capacity() - SegmentDescriptor.FOOTER_LENGTH;
    assertThat(raw.getLong(footer)).isEqualTo(SegmentDescriptor.FOOTER_MAGIC);
    assertThat(raw.getLong(footer + SegmentDescriptor.FOOTER_ENTRY_COUNT_OFFSET)).isEqualTo(30);
    assertThat(raw.getInt(footer + SegmentDescriptor.FOOTER_COLOR_SLOTS_OFFSET)).isEqualTo(2);

    Segment recovered = Segment.recover(file);

    assertThat(recovered.isComplete()).as(String.valueOf(recovered.problem())).isTrue();
    assertThat(recovered.entryCount()).isEqualTo(30);
    List<PmEntry> all = new ArrayList<>(first);
    all.addAll(second);
    for (int i = 0; i < all.size(); i++) {
      int offset = recovered.offsetOf(addresses.get(i));
      assertThat(offset).isPositive();
      assertThat(bytes(recovered.verifiedPayload(offset, crc))).isEqualTo(all.get(i).payload());
    }
    List<Long> visited = new ArrayList<>();
    recovered.forEachEntry(
        (address, shard, color, session, sequence, sn, length) -> visited.add(address),
        s -> false,
        TrimPoints.NONE);
    assertThat(visited).containsExactlyElementsOf(addresses);
    assertThat(recovered.offsetOf(addresses.get(0) + 8)).as("not an entry").isEqualTo(-1);
  }

  @Test
  void shouldLeaveOutEntriesAtOrBelowTheirColorsTrimPointAndSummariseTheRest() {
    List<Long> addresses = new ArrayList<>();
    List<PmEntry> mixed = new ArrayList<>(entries(10, 1, 100, 300));
    mixed.addAll(entries(10, 2, 100, 300));
    ChunkImage chunk = image(3, mixed, addresses);
    TrimPoints trims = TrimPoints.of(new int[] {1}, new long[] {104}, 1);

    Segment segment = writer.write(dir, 3, 3, List.of(chunk), trims);

    assertThat(segment.entryCount()).isEqualTo(15);
    assertThat(segment.offsetOf(addresses.get(4))).isEqualTo(-1);
    assertThat(segment.offsetOf(addresses.get(5))).isPositive();
    assertThat(segment.allTrimmed(trims)).isFalse();
    assertThat(segment.allTrimmed(TrimPoints.of(new int[] {1, 2}, new long[] {109, 108}, 2)))
        .isFalse();
    assertThat(segment.allTrimmed(TrimPoints.of(new int[] {1, 2}, new long[] {109, 109}, 2)))
        .isTrue();
    assertThat(Segment.recover(segment.file()).isComplete()).isTrue();
  }

  @Test
  void shouldIndexSparselyAndFindEveryEntry() throws Exception {
    List<Long> addresses = new ArrayList<>();
    List<PmEntry> many = entries(6000, 1, 1, 200); // about 700 KB: a few dozen index slots
    ChunkImage chunk = image(9, many, addresses);

    Segment segment = writer.write(dir, 9, 9, List.of(chunk), TrimPoints.NONE);

    Segment recovered = Segment.recover(segment.file());
    assertThat(recovered.isComplete()).isTrue();
    for (int i = 0; i < many.size(); i++) {
      int offset = recovered.offsetOf(addresses.get(i));
      assertThat(offset).as("entry %d", i).isPositive();
      assertThat(bytes(recovered.verifiedPayload(offset, crc))).isEqualTo(many.get(i).payload());
    }
    int slots = footerInt(segment.file(), SegmentDescriptor.FOOTER_INDEX_SLOTS_OFFSET);
    long entriesEnd = footerLong(segment.file(), SegmentDescriptor.FOOTER_ENTRIES_END_OFFSET);
    assertThat(slots).isGreaterThan(10);
    assertThat((long) slots)
        .isLessThanOrEqualTo(entriesEnd / SegmentDescriptor.INDEX_INTERVAL_BYTES + 1);
  }

  private static ByteBuffer footer(Path file) throws java.io.IOException {
    byte[] all = Files.readAllBytes(file);
    return ByteBuffer.wrap(
            all, all.length - SegmentDescriptor.FOOTER_LENGTH, SegmentDescriptor.FOOTER_LENGTH)
        .slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  private static int footerInt(Path file, int offset) throws java.io.IOException {
    return footer(file).getInt(offset);
  }

  private static long footerLong(Path file, int offset) throws java.io.IOException {
    return footer(file).getLong(offset);
  }

  @Test
  void shouldWritePayloadsLargerThanItsBuffer() {
    List<Long> addresses = new ArrayList<>();
    List<PmEntry> large = new ArrayList<>();
    large.add(new PmEntry(1, 1, 1, 1, 1, payload(1, 3 << 20)));
    large.add(new PmEntry(1, 2, 1, 2, 1, payload(2, 10)));
    ChunkImage chunk = image(4, large, addresses);

    Segment segment = writer.write(dir, 4, 4, List.of(chunk), TrimPoints.NONE);

    Segment recovered = Segment.recover(segment.file());
    assertThat(recovered.isComplete()).isTrue();
    assertThat(bytes(recovered.verifiedPayload(recovered.offsetOf(addresses.get(0)), crc)))
        .isEqualTo(large.get(0).payload());
    assertThat(bytes(recovered.verifiedPayload(recovered.offsetOf(addresses.get(1)), crc)))
        .isEqualTo(large.get(1).payload());
  }

  @Test
  void shouldRefuseAPendingEntryAndLeaveNoFileBehind() {
    List<Long> addresses = new ArrayList<>();
    List<PmEntry> pending = List.of(new PmEntry(1, 0, 1, 1, 1, payload(1, 10)));
    ChunkImage chunk = image(5, pending, addresses);

    assertThatThrownBy(() -> writer.write(dir, 5, 5, List.of(chunk), TrimPoints.NONE))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("pending entry");
    assertThat(dir.resolve(SegmentDescriptor.fileName(5))).doesNotExist();
  }

  @Test
  void shouldRecogniseSegmentFileNames() {
    assertThat(SegmentDescriptor.fileName(0x1aL)).isEqualTo("segment-000000000000001a.seg");
    assertThat(SegmentDescriptor.firstSequenceFromName("segment-000000000000001a.seg"))
        .isEqualTo(0x1a);
    assertThat(SegmentDescriptor.firstSequenceFromName("segment-1a.seg")).isEqualTo(-1);
    assertThat(SegmentDescriptor.firstSequenceFromName("segment-000000000000001a.seg.damaged"))
        .isEqualTo(-1);
  }
}
