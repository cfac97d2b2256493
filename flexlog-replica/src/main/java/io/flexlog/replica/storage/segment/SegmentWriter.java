package io.flexlog.replica.storage.segment;

import io.flexlog.core.util.DurableFiles;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TrimPoints;
import io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor;
import io.flexlog.replica.storage.chunk.PmEntryDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes one segment file ({@link SegmentDescriptor}) from the images of consecutive PM chunks:
 * every live entry (committed and above its color's trim point) in address order, then the sparse
 * index, the color table and the footer; then fsyncs the file and its directory. Only after {@link
 * #write} returns may the PM chunks be freed.
 *
 * <p>Design note: a separate class because it is the one piece of storage code that runs on the
 * tiering thread; it touches nothing but its arguments and its own buffers.
 *
 * <p>Threading: one tiering thread; not thread-safe. No allocation per entry.
 */
public final class SegmentWriter {
  private static final int BUFFER_BYTES = 1 << 20;

  private final ByteBuffer buffer =
      ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final ByteBuffer header =
      ByteBuffer.allocate(SegmentDescriptor.ENTRY_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
  private final byte[] padding = new byte[SegmentDescriptor.ALIGNMENT];
  private final CRC32C crc = new CRC32C();
  private FileChannel channel;
  private long position;

  /**
   * Writes and fsyncs {@code dir/segment-<first>.seg}.
   *
   * @param chunks images of the chunks with sequences {@code first..last}, in sequence order
   * @param trims entries at or below these trim points are left out
   * @return the new segment, mapped for reading
   * @throws StorageException on I/O failure (the partial file is deleted) or a pending entry
   */
  public Segment write(
      Path dir, long firstSequence, long lastSequence, List<ChunkImage> chunks, TrimPoints trims) {
    Path file = dir.resolve(SegmentDescriptor.fileName(firstSequence));
    SegmentSummary summary = new SegmentSummary();
    boolean done = false;
    try {
      Files.deleteIfExists(file); // a leftover of an earlier failed attempt at the same range
      channel =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE,
              StandardOpenOption.READ);
      position = 0;
      buffer.clear();
      writeHeader(firstSequence, lastSequence);
      for (ChunkImage chunk : chunks) {
        writeEntries(chunk, trims, summary);
      }
      long entriesEnd = position + buffer.position();
      writeFooter(summary, entriesEnd);
      drain();
      channel.force(true);
      channel.close();
      channel = null;
      DurableFiles.syncDirectory(dir);
      if (entriesEnd > SegmentDescriptor.MAX_FILE_BYTES) {
        throw new StorageException("segment " + file + " would exceed 2 GiB");
      }
      Segment segment =
          Segment.written(file, firstSequence, lastSequence, summary, (int) entriesEnd);
      done = true;
      return segment;
    } catch (IOException e) {
      throw new StorageException("cannot write segment " + file + ": " + e.getMessage(), e);
    } finally {
      if (!done) {
        abandon(file);
      }
    }
  }

  private void writeHeader(long firstSequence, long lastSequence) {
    ByteBuffer h = buffer;
    h.putLong(SegmentDescriptor.MAGIC_OFFSET, SegmentDescriptor.MAGIC);
    h.putInt(SegmentDescriptor.VERSION_OFFSET, SegmentDescriptor.VERSION);
    h.putInt(SegmentDescriptor.HEADER_LENGTH_OFFSET, SegmentDescriptor.HEADER_LENGTH);
    h.putLong(SegmentDescriptor.FIRST_SEQUENCE_OFFSET, firstSequence);
    h.putLong(SegmentDescriptor.LAST_SEQUENCE_OFFSET, lastSequence);
    for (int at = 32; at < SegmentDescriptor.HEADER_CRC_OFFSET; at += 4) {
      h.putInt(at, 0);
    }
    h.putInt(SegmentDescriptor.HEADER_CRC_OFFSET, Segment.headerCrc(h, crc));
    h.position(SegmentDescriptor.HEADER_LENGTH);
  }

  private void writeEntries(ChunkImage chunk, TrimPoints trims, SegmentSummary summary)
      throws IOException {
    ByteBuffer image = chunk.buffer();
    int end = image.limit();
    int at = ChunkHeaderDescriptor.ENTRIES_OFFSET;
    while (at + PmEntryDescriptor.HEADER_LENGTH <= end) {
      int length = image.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
      int colorId = image.getInt(at + PmEntryDescriptor.COLOR_OFFSET);
      long sn = image.getLong(at + PmEntryDescriptor.SN_OFFSET);
      if (sn == PmEntryDescriptor.PENDING_SN) {
        throw new StorageException(
            "chunk " + chunk.sequence() + " holds a pending entry at " + at + ": cannot tier it");
      }
      if (!trims.isTrimmed(colorId, sn)) {
        long address = (chunk.sequence() << 32) | at;
        summary.add(address, (int) (position + buffer.position()), colorId, sn);
        writeEntry(image, at, length, address, sn, colorId);
      }
      at += (int) PmEntryDescriptor.entryLength(length);
    }
    image.clear();
  }

  private void writeEntry(ByteBuffer image, int at, int length, long address, long sn, int colorId)
      throws IOException {
    header.putInt(SegmentDescriptor.ENTRY_LENGTH_OFFSET, length);
    header.putLong(SegmentDescriptor.ENTRY_ADDRESS_OFFSET, address);
    header.putLong(SegmentDescriptor.ENTRY_SN_OFFSET, sn);
    header.putLong(
        SegmentDescriptor.ENTRY_TOKEN_SESSION_OFFSET,
        image.getLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET));
    header.putLong(
        SegmentDescriptor.ENTRY_TOKEN_SEQUENCE_OFFSET,
        image.getLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET));
    header.putInt(SegmentDescriptor.ENTRY_COLOR_OFFSET, colorId);
    header.putInt(
        SegmentDescriptor.ENTRY_SHARD_OFFSET, image.getInt(at + PmEntryDescriptor.SHARD_OFFSET));
    int payloadAt = at + PmEntryDescriptor.PAYLOAD_OFFSET;
    crc.reset();
    crc.update(header.array(), 0, SegmentDescriptor.ENTRY_CRC_OFFSET);
    crc.update(
        header.array(),
        SegmentDescriptor.ENTRY_CRC_RANGE2_OFFSET,
        SegmentDescriptor.ENTRY_CRC_RANGE2_LENGTH);
    image.clear().position(payloadAt).limit(payloadAt + length);
    crc.update(image);
    header.putInt(SegmentDescriptor.ENTRY_CRC_OFFSET, (int) crc.getValue());

    ensure(SegmentDescriptor.ENTRY_HEADER_LENGTH);
    buffer.put(header.array(), 0, SegmentDescriptor.ENTRY_HEADER_LENGTH);
    image.clear().position(payloadAt).limit(payloadAt + length);
    if (length > buffer.remaining()) {
      drain();
    }
    if (length > buffer.remaining()) {
      writeFully(image); // larger than the buffer: straight from the chunk
    } else {
      buffer.put(image);
    }
    image.clear(); // absolute reads of the next entry need the whole chunk again
    int pad =
        (int) (SegmentDescriptor.entryLength(length) - SegmentDescriptor.ENTRY_HEADER_LENGTH)
            - length;
    ensure(pad);
    buffer.put(padding, 0, pad);
  }

  private void writeFooter(SegmentSummary summary, long entriesEnd) throws IOException {
    int tables = summary.tablesLength();
    ensure(Math.min(buffer.capacity(), tables + SegmentDescriptor.FOOTER_LENGTH));
    crc.reset();
    if (tables + SegmentDescriptor.FOOTER_LENGTH > buffer.remaining()) {
      // Tables larger than the buffer: written through a temporary buffer of their size.
      ByteBuffer large =
          ByteBuffer.allocate(tables + SegmentDescriptor.FOOTER_LENGTH)
              .order(ByteOrder.LITTLE_ENDIAN);
      appendTablesAndFooter(large, summary, entriesEnd);
      drain();
      large.flip();
      writeFully(large);
      return;
    }
    appendTablesAndFooter(buffer, summary, entriesEnd);
  }

  private void appendTablesAndFooter(ByteBuffer out, SegmentSummary summary, long entriesEnd) {
    int start = out.position();
    summary.writeTables(out);
    int footer = out.position();
    out.putLong(SegmentDescriptor.FOOTER_MAGIC);
    out.putLong(entriesEnd);
    out.putLong(summary.entryCount());
    out.putInt(summary.indexSlots());
    out.putInt(summary.colorSlots());
    while (out.position() < footer + SegmentDescriptor.FOOTER_CRC_OFFSET) {
      out.putInt(0);
    }
    ByteBuffer window = out.duplicate();
    window.position(start).limit(footer + SegmentDescriptor.FOOTER_CRC_OFFSET);
    crc.reset();
    crc.update(window);
    out.putInt((int) crc.getValue());
  }

  private void ensure(int bytes) throws IOException {
    if (buffer.remaining() < bytes) {
      drain();
    }
  }

  private void drain() throws IOException {
    buffer.flip();
    writeFully(buffer);
    buffer.clear();
  }

  private void writeFully(ByteBuffer source) throws IOException {
    while (source.hasRemaining()) {
      position += channel.write(source, position);
    }
  }

  private void abandon(Path file) {
    try {
      if (channel != null) {
        channel.close();
        channel = null;
      }
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // The half-written file is also recognised and removed at the next start.
    }
  }
}
