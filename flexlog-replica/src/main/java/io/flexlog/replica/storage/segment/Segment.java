package io.flexlog.replica.storage.segment;

import static io.flexlog.replica.storage.segment.SegmentDescriptor.ENTRY_HEADER_LENGTH;

import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TrimPoints;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.LongPredicate;
import java.util.zip.CRC32C;

/**
 * One segment file ({@link SegmentDescriptor}), mapped read-only, with its sparse index in memory.
 * Reads find an entry by address: the index gives the last indexed entry at or before it, a short
 * forward scan over entry headers the entry itself.
 *
 * <p>A segment opened by recovery may be incomplete (a torn write or later damage): then only its
 * valid prefix, up to the first entry that fails its checks, is readable, and {@link #problem()}
 * says what is wrong.
 *
 * <p>Threading: created by the tiering thread (or recovery) and handed to the owner thread, which
 * alone reads it afterwards. The mapping is a {@link SegmentMapping}: {@link #release} gives up the
 * segment's reference once it left the store, retained payload views keep it mapped (and readable
 * after the file is deleted) until they are released, and the last release unmaps it.
 */
public final class Segment {
  private final Path file;
  private final long firstSequence;
  private final long lastSequence;
  private final ByteBuffer map;
  private final ByteBuffer crcWindow;
  private final ByteBuf bytes;
  private final SegmentSummary summary;
  private final int entriesEnd;
  private final long fileBytes;
  private final String problem;
  private boolean released;

  private Segment(
      Path file,
      long firstSequence,
      long lastSequence,
      ByteBuffer map,
      SegmentSummary summary,
      int entriesEnd,
      String problem) {
    this.file = file;
    this.firstSequence = firstSequence;
    this.lastSequence = lastSequence;
    this.map = map;
    this.crcWindow = map.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    this.bytes = new SegmentMapping(map);
    this.summary = summary;
    this.entriesEnd = entriesEnd;
    this.fileBytes = map.capacity();
    this.problem = problem;
  }

  /** A segment the writer just wrote and fsync'ed: its summary is the one it built. */
  static Segment written(
      Path file, long firstSequence, long lastSequence, SegmentSummary summary, int entriesEnd) {
    return new Segment(
        file, firstSequence, lastSequence, mapReadOnly(file), summary, entriesEnd, null);
  }

  public Path file() {
    return file;
  }

  public long firstSequence() {
    return firstSequence;
  }

  public long lastSequence() {
    return lastSequence;
  }

  public long entryCount() {
    return summary.entryCount();
  }

  public long fileBytes() {
    return fileBytes;
  }

  /** True when header, every entry and the footer verify. */
  public boolean isComplete() {
    return problem == null;
  }

  /** What is wrong with an incomplete segment, or null. */
  public String problem() {
    return problem;
  }

  boolean coversSequence(long chunkSequence) {
    return chunkSequence >= firstSequence && chunkSequence <= lastSequence;
  }

  /** File offset of the entry at {@code address}, or -1 when this segment does not hold it. */
  int offsetOf(long address) {
    int at = summary.floorOffset(address);
    if (at < 0) {
      return -1;
    }
    while (at < entriesEnd) {
      long found = map.getLong(at + SegmentDescriptor.ENTRY_ADDRESS_OFFSET);
      if (found == address) {
        return at;
      }
      if (found > address) {
        return -1;
      }
      at += (int) SegmentDescriptor.entryLength(payloadLength(at));
    }
    return -1;
  }

  int payloadLength(int offset) {
    return map.getInt(offset + SegmentDescriptor.ENTRY_LENGTH_OFFSET);
  }

  long tokenSession(int offset) {
    return map.getLong(offset + SegmentDescriptor.ENTRY_TOKEN_SESSION_OFFSET);
  }

  long tokenSequence(int offset) {
    return map.getLong(offset + SegmentDescriptor.ENTRY_TOKEN_SEQUENCE_OFFSET);
  }

  /**
   * A read-only view of the payload of the entry at {@code offset}, after checking its CRC.
   *
   * @throws StorageException when the bytes no longer match their CRC (media damage)
   */
  ByteBuf verifiedPayload(int offset, CRC32C crc) {
    checkMapped();
    int length = payloadLength(offset);
    if (entryCrc(crcWindow, offset, length, crc)
        != map.getInt(offset + SegmentDescriptor.ENTRY_CRC_OFFSET)) {
      throw new StorageException(
          "segment "
              + file
              + ": the entry at offset "
              + offset
              + " no longer matches its CRC (media damage)");
    }
    return bytes.slice(offset + SegmentDescriptor.ENTRY_PAYLOAD_OFFSET, length).asReadOnly();
  }

  /**
   * Reports the readable entries in address order, except those of chunks {@code skipChunk} accepts
   * and those at or below their color's trim point.
   */
  void forEachEntry(LogStorage.EntryVisitor visitor, LongPredicate skipChunk, TrimPoints trims) {
    int at = SegmentDescriptor.HEADER_LENGTH;
    while (at < entriesEnd) {
      int length = payloadLength(at);
      long address = map.getLong(at + SegmentDescriptor.ENTRY_ADDRESS_OFFSET);
      int colorId = map.getInt(at + SegmentDescriptor.ENTRY_COLOR_OFFSET);
      long sn = map.getLong(at + SegmentDescriptor.ENTRY_SN_OFFSET);
      if (!skipChunk.test(address >>> 32) && !trims.isTrimmed(colorId, sn)) {
        visitor.onEntry(
            address,
            map.getInt(at + SegmentDescriptor.ENTRY_SHARD_OFFSET),
            colorId,
            map.getLong(at + SegmentDescriptor.ENTRY_TOKEN_SESSION_OFFSET),
            map.getLong(at + SegmentDescriptor.ENTRY_TOKEN_SEQUENCE_OFFSET),
            sn,
            length);
      }
      at += (int) SegmentDescriptor.entryLength(length);
    }
  }

  boolean allTrimmed(TrimPoints trims) {
    return summary.allTrimmed(trims);
  }

  /**
   * Gives up the segment's own reference to its mapping, once the store no longer lists it: the
   * file is unmapped now, or when the last retained view is released. Owner thread; at most once.
   */
  void release() {
    if (!released) {
      released = true;
      bytes.release();
    }
  }

  // Reading the mapping after its unmap would crash the JVM instead of failing.
  private void checkMapped() {
    if (released) {
      throw new IllegalStateException("segment " + file + " was released");
    }
  }

  // ---------------------------------------------------------------- recovery

  /**
   * Opens a segment file found at start-up and checks everything: header, each entry's length,
   * address range and CRC, the footer, and that the footer's tables match the entries.
   *
   * @return the segment (complete, or its valid prefix with {@link #problem()} set), or null when
   *     even the header cannot be read
   */
  static Segment recover(Path file) {
    ByteBuffer map;
    try {
      map = mapReadOnly(file);
    } catch (StorageException e) {
      return null;
    }
    long fileBytes = map.capacity();
    CRC32C crc = new CRC32C();
    if (fileBytes < SegmentDescriptor.HEADER_LENGTH
        || map.getLong(SegmentDescriptor.MAGIC_OFFSET) != SegmentDescriptor.MAGIC
        || map.getInt(SegmentDescriptor.VERSION_OFFSET) != SegmentDescriptor.VERSION
        || map.getInt(SegmentDescriptor.HEADER_LENGTH_OFFSET) != SegmentDescriptor.HEADER_LENGTH
        || headerCrc(map, crc) != map.getInt(SegmentDescriptor.HEADER_CRC_OFFSET)) {
      SegmentMapping.unmap(map);
      return null;
    }
    long first = map.getLong(SegmentDescriptor.FIRST_SEQUENCE_OFFSET);
    long last = map.getLong(SegmentDescriptor.LAST_SEQUENCE_OFFSET);
    long footerEntriesEnd = footerEntriesEnd(map, crc);
    int limit = (int) (footerEntriesEnd >= 0 ? footerEntriesEnd : fileBytes);

    SegmentSummary summary = new SegmentSummary();
    ByteBuffer window = map.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int at = SegmentDescriptor.HEADER_LENGTH;
    long previous = Long.MIN_VALUE;
    String problem = null;
    while (at < limit) {
      if (at + ENTRY_HEADER_LENGTH > limit) {
        problem = "half-written entry header at offset " + at;
        break;
      }
      int length = map.getInt(at + SegmentDescriptor.ENTRY_LENGTH_OFFSET);
      if (length < 0 || at + SegmentDescriptor.entryLength(length) > limit) {
        problem = "entry at offset " + at + " runs past the end of its data (half-written)";
        break;
      }
      long address = map.getLong(at + SegmentDescriptor.ENTRY_ADDRESS_OFFSET);
      long sequence = address >>> 32;
      if (entryCrc(window, at, length, crc) != map.getInt(at + SegmentDescriptor.ENTRY_CRC_OFFSET)
          || address <= previous
          || sequence < first
          || sequence > last) {
        problem = "entry at offset " + at + " fails its CRC or address check";
        break;
      }
      summary.add(
          address,
          at,
          map.getInt(at + SegmentDescriptor.ENTRY_COLOR_OFFSET),
          map.getLong(at + SegmentDescriptor.ENTRY_SN_OFFSET));
      previous = address;
      at += (int) SegmentDescriptor.entryLength(length);
    }
    if (footerEntriesEnd < 0) {
      // Without a footer the scan runs into whatever follows the entries, so it always stops.
      problem = "no valid footer (" + problem + ")";
    } else if (problem == null) {
      problem = footerProblem(map, summary, at);
    }
    return new Segment(file, first, last, map, summary, at, problem);
  }

  /** The footer's entries-end when the footer is intact, else -1. */
  private static long footerEntriesEnd(ByteBuffer map, CRC32C crc) {
    long fileBytes = map.capacity();
    if (fileBytes < SegmentDescriptor.HEADER_LENGTH + SegmentDescriptor.FOOTER_LENGTH) {
      return -1;
    }
    int footer = (int) (fileBytes - SegmentDescriptor.FOOTER_LENGTH);
    if (map.getLong(footer + SegmentDescriptor.FOOTER_MAGIC_OFFSET)
        != SegmentDescriptor.FOOTER_MAGIC) {
      return -1;
    }
    long entriesEnd = map.getLong(footer + SegmentDescriptor.FOOTER_ENTRIES_END_OFFSET);
    int indexSlots = map.getInt(footer + SegmentDescriptor.FOOTER_INDEX_SLOTS_OFFSET);
    int colorSlots = map.getInt(footer + SegmentDescriptor.FOOTER_COLOR_SLOTS_OFFSET);
    if (entriesEnd < SegmentDescriptor.HEADER_LENGTH
        || indexSlots < 0
        || colorSlots < 0
        || SegmentDescriptor.fileLength(entriesEnd, indexSlots, colorSlots) != fileBytes) {
      return -1;
    }
    ByteBuffer window = map.duplicate();
    window.clear().position((int) entriesEnd).limit(footer + SegmentDescriptor.FOOTER_CRC_OFFSET);
    crc.reset();
    crc.update(window);
    if ((int) crc.getValue() != map.getInt(footer + SegmentDescriptor.FOOTER_CRC_OFFSET)) {
      return -1;
    }
    return entriesEnd;
  }

  private static String footerProblem(ByteBuffer map, SegmentSummary summary, int entriesEnd) {
    int footer = map.capacity() - SegmentDescriptor.FOOTER_LENGTH;
    if (map.getLong(footer + SegmentDescriptor.FOOTER_ENTRY_COUNT_OFFSET) != summary.entryCount()
        || map.getInt(footer + SegmentDescriptor.FOOTER_INDEX_SLOTS_OFFSET) != summary.indexSlots()
        || map.getInt(footer + SegmentDescriptor.FOOTER_COLOR_SLOTS_OFFSET) != summary.colorSlots()
        || !summary.matchesTables(map, entriesEnd)) {
      return "footer does not match the entries";
    }
    return null;
  }

  static int headerCrc(ByteBuffer header, CRC32C crc) {
    ByteBuffer window = header.duplicate();
    window.clear().position(0).limit(SegmentDescriptor.HEADER_CRC_OFFSET);
    crc.reset();
    crc.update(window);
    return (int) crc.getValue();
  }

  /** CRC32C of an entry's bytes [0, 4), [8, 48) and its payload, read through {@code window}. */
  static int entryCrc(ByteBuffer window, int at, int payloadLength, CRC32C crc) {
    crc.reset();
    window.clear().position(at).limit(at + SegmentDescriptor.ENTRY_CRC_OFFSET);
    crc.update(window);
    window
        .clear()
        .position(at + SegmentDescriptor.ENTRY_CRC_RANGE2_OFFSET)
        .limit(at + ENTRY_HEADER_LENGTH);
    crc.update(window);
    window
        .clear()
        .position(at + SegmentDescriptor.ENTRY_PAYLOAD_OFFSET)
        .limit(at + ENTRY_HEADER_LENGTH + payloadLength);
    crc.update(window);
    return (int) crc.getValue();
  }

  // A private mapping: copy-on-write, which no one writes to; see SegmentMapping.
  private static ByteBuffer mapReadOnly(Path file) {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = channel.size();
      if (size > SegmentDescriptor.MAX_FILE_BYTES) {
        throw new StorageException(file + " is larger than a segment can be (" + size + " bytes)");
      }
      return channel.map(FileChannel.MapMode.PRIVATE, 0, size).order(ByteOrder.LITTLE_ENDIAN);
    } catch (IOException e) {
      throw new StorageException("cannot map segment " + file + ": " + e.getMessage(), e);
    }
  }
}
