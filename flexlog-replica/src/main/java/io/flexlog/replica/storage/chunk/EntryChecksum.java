package io.flexlog.replica.storage.chunk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The CRC32C of one entry as {@link PmEntryDescriptor} defines it: the chunk sequence, then the
 * header fields it covers, then the payload, read from the chunk memory where the entry lies, so
 * that the check covers the copy into the log itself.
 *
 * <p>Threading: the log's owner thread; one instance, reused for every entry (no allocation).
 */
final class EntryChecksum {
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer seed = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);

  /** The CRC of the entry at offset {@code at} of a chunk with sequence {@code chunkSequence}. */
  int compute(ChunkMemory chunk, long chunkSequence, int at, int payloadLength) {
    crc.reset();
    seed.putLong(0, chunkSequence);
    crc.update(seed.array(), 0, PmEntryDescriptor.CRC_SEED_LENGTH);
    chunk.updateCrc(
        crc, at + PmEntryDescriptor.CRC_RANGE1_OFFSET, PmEntryDescriptor.CRC_RANGE1_LENGTH);
    chunk.updateCrc(
        crc, at + PmEntryDescriptor.CRC_RANGE2_OFFSET, PmEntryDescriptor.CRC_RANGE2_LENGTH);
    chunk.updateCrc(crc, at + PmEntryDescriptor.PAYLOAD_OFFSET, payloadLength);
    return (int) crc.getValue();
  }
}
