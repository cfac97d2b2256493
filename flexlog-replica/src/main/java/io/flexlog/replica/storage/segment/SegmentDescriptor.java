package io.flexlog.replica.storage.segment;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Layout of an SSD segment file: an immutable copy of the live entries of one or more consecutive
 * PM chunks (chunk sequences {@code first..last}), written once by the tiering thread. All integers
 * are little-endian; every section starts 8-byte aligned. File name: {@code segment-<first chunk
 * sequence, 16 hex digits>.seg}.
 *
 * <pre>
 * header (64 bytes)
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                magic "FLXLSEGM" (8 ASCII bytes)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         version (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                    header length (int32, 64)                  |
 *  +---------------------------------------------------------------+
 *  |                first chunk sequence (int64)                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 last chunk sequence (int64)                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (28 bytes)                 |
 *  +---------------------------------------------------------------+
 *  |               CRC32C of header bytes 0..59 (int32)            |
 *  +---------------------------------------------------------------+
 *
 * entry (48-byte header, then the payload zero-padded to 8), repeated
 *  +---------------------------------------------------------------+
 *  |                     payload length (int32)                    |
 *  +---------------------------------------------------------------+
 *  |     CRC32C of bytes 0..3, 8..47 and the payload (int32)       |
 *  +---------------------------------------------------------------+
 *  |          address (int64: chunk sequence << 32 | offset)       |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                             SN (int64)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                    token: session id (int64)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                    token: sequence (int64)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                        color id (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                        shard id (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                 payload ... zero padding to 8 bytes           |
 *
 * sparse index (at "entries end"): one slot per entry that starts at least
 * INDEX_INTERVAL_BYTES after the previous indexed one (the first entry always)
 *  |  address (int64)  |  file offset of that entry (int64)  |        16 bytes each
 *
 * color table: one slot per color with entries in the segment
 *  | color id (int32) | reserved (int32) | min SN (int64) | max SN (int64) | entries (int64) |
 *
 * footer (64 bytes, the last bytes of the file)
 *  +---------------------------------------------------------------+
 *  |                magic "FLXLSEGF" (8 ASCII bytes)               |
 *  +---------------------------------------------------------------+
 *  |       entries end = offset of the sparse index (int64)        |
 *  +---------------------------------------------------------------+
 *  |                       entry count (int64)                     |
 *  +---------------------------------------------------------------+
 *  |   index slots (int32)        |      color slots (int32)       |
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (28 bytes)                 |
 *  +---------------------------------------------------------------+
 *  |  CRC32C of the index, the color table and footer bytes 0..59  |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Entries are in address order. Addresses are the ones the PM log gave the entries, so they stay
 * valid once the entries live here; a read finds an entry through the sparse index and a short
 * forward scan. Reads come by address (the replica's SN index maps SNs to addresses); SNs are
 * summarised per color in the color table, which is what trim needs to delete whole segments.
 *
 * <p>A segment is <em>complete</em> when its header, every entry and its footer verify and the
 * footer's index and color table match the entries. The writer writes everything, then fsyncs the
 * file and its directory, and only then lets the PM chunks go; see {@code SegmentStore} for which
 * tier is authoritative after a crash.
 */
public final class SegmentDescriptor {
  public static final long MAGIC = magic("FLXLSEGM");
  public static final long FOOTER_MAGIC = magic("FLXLSEGF");
  public static final int VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 8;
  public static final int HEADER_LENGTH_OFFSET = 12;
  public static final int FIRST_SEQUENCE_OFFSET = 16;
  public static final int LAST_SEQUENCE_OFFSET = 24;
  public static final int HEADER_CRC_OFFSET = 60;
  public static final int HEADER_LENGTH = 64;

  public static final int ENTRY_LENGTH_OFFSET = 0;
  public static final int ENTRY_CRC_OFFSET = 4;
  public static final int ENTRY_ADDRESS_OFFSET = 8;
  public static final int ENTRY_SN_OFFSET = 16;
  public static final int ENTRY_TOKEN_SESSION_OFFSET = 24;
  public static final int ENTRY_TOKEN_SEQUENCE_OFFSET = 32;
  public static final int ENTRY_COLOR_OFFSET = 40;
  public static final int ENTRY_SHARD_OFFSET = 44;
  public static final int ENTRY_HEADER_LENGTH = 48;
  public static final int ENTRY_PAYLOAD_OFFSET = ENTRY_HEADER_LENGTH;

  /** The entry's CRC covers bytes [0, 4) and [8, 48) of its header, then the payload. */
  public static final int ENTRY_CRC_RANGE2_OFFSET = ENTRY_ADDRESS_OFFSET;

  public static final int ENTRY_CRC_RANGE2_LENGTH = ENTRY_HEADER_LENGTH - ENTRY_ADDRESS_OFFSET;

  public static final int INDEX_SLOT_LENGTH = 16;
  public static final int INDEX_ADDRESS_OFFSET = 0;
  public static final int INDEX_FILE_OFFSET_OFFSET = 8;

  /** An entry is indexed when it starts at least this far after the previous indexed entry. */
  public static final int INDEX_INTERVAL_BYTES = 32 * 1024;

  public static final int COLOR_SLOT_LENGTH = 32;
  public static final int COLOR_ID_OFFSET = 0;
  public static final int COLOR_MIN_SN_OFFSET = 8;
  public static final int COLOR_MAX_SN_OFFSET = 16;
  public static final int COLOR_ENTRIES_OFFSET = 24;

  public static final int FOOTER_MAGIC_OFFSET = 0;
  public static final int FOOTER_ENTRIES_END_OFFSET = 8;
  public static final int FOOTER_ENTRY_COUNT_OFFSET = 16;
  public static final int FOOTER_INDEX_SLOTS_OFFSET = 24;
  public static final int FOOTER_COLOR_SLOTS_OFFSET = 28;
  public static final int FOOTER_CRC_OFFSET = 60;
  public static final int FOOTER_LENGTH = 64;

  public static final int ALIGNMENT = 8;

  /** Largest segment file: offsets inside a mapped segment are ints. */
  public static final long MAX_FILE_BYTES = Integer.MAX_VALUE;

  public static final String FILE_PREFIX = "segment-";
  public static final String FILE_SUFFIX = ".seg";

  private SegmentDescriptor() {}

  /** Bytes an entry with this payload occupies, header and padding included. */
  public static long entryLength(int payloadLength) {
    return align((long) ENTRY_HEADER_LENGTH + payloadLength);
  }

  public static long align(long length) {
    return (length + ALIGNMENT - 1) & -ALIGNMENT;
  }

  /** The file length for a segment whose entries end at {@code entriesEnd}. */
  public static long fileLength(long entriesEnd, int indexSlots, int colorSlots) {
    return entriesEnd
        + (long) indexSlots * INDEX_SLOT_LENGTH
        + (long) colorSlots * COLOR_SLOT_LENGTH
        + FOOTER_LENGTH;
  }

  public static String fileName(long firstChunkSequence) {
    return String.format(Locale.ROOT, "%s%016x%s", FILE_PREFIX, firstChunkSequence, FILE_SUFFIX);
  }

  /** The first chunk sequence from a segment file name, or -1 if it is not one. */
  public static long firstSequenceFromName(String fileName) {
    if (!fileName.startsWith(FILE_PREFIX)
        || !fileName.endsWith(FILE_SUFFIX)
        || fileName.length() != FILE_PREFIX.length() + 16 + FILE_SUFFIX.length()) {
      return -1;
    }
    try {
      return Long.parseUnsignedLong(
          fileName.substring(FILE_PREFIX.length(), FILE_PREFIX.length() + 16), 16);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static long magic(String eightAsciiChars) {
    byte[] bytes = eightAsciiChars.getBytes(StandardCharsets.US_ASCII);
    long value = 0;
    for (int i = 7; i >= 0; i--) {
      value = (value << 8) | (bytes[i] & 0xFF);
    }
    return value;
  }
}
