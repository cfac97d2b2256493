package io.flexlog.replica.storage;

import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TrimmedTokenStore} of a replica node: the append-only file {@value #FILE_NAME} in its
 * data directory (docs/operations.md#data-directories), written on the replica's event loop when a
 * trim is applied (trims are rare: retention decides one every few seconds at most).
 *
 * <p>Layout (little-endian): a header of 16 bytes (magic {@code FLXLTOKN}, version 1, node id),
 * then records of 32 bytes (token session, token sequence, SN, 4 reserved zero bytes, a CRC32C of
 * the 28 bytes before it). {@link #sync} writes the new records after the intact part and, in
 * durability {@code fsync} or {@code pmem}, forces them; in {@code process} the page cache is
 * enough, as for the log. A crash in the middle of a write leaves a torn last record, which fails
 * its CRC: {@link #load} stops before it and the next {@link #sync} overwrites it. {@link #compact}
 * replaces the whole file through {@link DurableFiles}.
 *
 * <p>{@link #load} trusts nothing it cannot check: a missing file, or one with a bad header (magic,
 * version, another node's id), holds no tokens (a warning names the reason), and the first {@link
 * #sync} replaces it. Loading never writes.
 */
public final class TrimmedTokenFile implements TrimmedTokenStore {
  private static final Logger LOG = LoggerFactory.getLogger(TrimmedTokenFile.class);

  /** The file's name in the data directory. */
  public static final String FILE_NAME = "trimmed-tokens";

  static final long MAGIC = 0x4e4b_4f54_4c58_4c46L; // "FLXLTOKN", little-endian
  static final int VERSION = 1;
  static final int HEADER_BYTES = 16;
  static final int RECORD_BYTES = 32;
  private static final int CRC_OFFSET = 28;
  private static final int READ_RECORDS = 2048;
  private static final int BUFFER_RECORDS = 2048;

  private final Path file;
  private final int nodeId;
  private final DurabilityMode durability;
  private final DurableFiles.FileOps ops;
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer unsynced =
      ByteBuffer.allocate(BUFFER_RECORDS * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private FileChannel channel;

  /** Where the intact part ends: 0 while the file is missing or cannot be trusted. */
  private long intactBytes;

  /** Where the next write goes: past the intact part by what was written since the last sync. */
  private long writtenBytes;

  private long count;
  private boolean loaded;

  /**
   * The file in {@code dataDir} of replica {@code nodeId}, whose log runs in {@code durability}.
   */
  public TrimmedTokenFile(Path dataDir, int nodeId, DurabilityMode durability) {
    this(dataDir, nodeId, durability, DurableFiles.REAL);
  }

  /** With the file-system steps given, for tests. */
  public TrimmedTokenFile(
      Path dataDir, int nodeId, DurabilityMode durability, DurableFiles.FileOps ops) {
    this.file = dataDir.resolve(FILE_NAME);
    this.nodeId = nodeId;
    this.durability = durability;
    this.ops = ops;
  }

  @Override
  public void load(TokenVisitor visitor) {
    if (loaded) {
      throw new IllegalStateException("already loaded: " + file);
    }
    loaded = true;
    if (!Files.exists(file)) {
      return;
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      String untrusted = checkHeader(ch, size);
      if (untrusted != null) {
        LOG.warn(
            "replica {}: {} {}; it holds no trimmed tokens and is replaced at the next trim",
            nodeId,
            file,
            untrusted);
        return;
      }
      long end = replay(ch, size, visitor);
      intactBytes = end;
      if (end < size) {
        LOG.warn(
            "replica {}: {} ends in {} bytes that are not an intact token (a write cut short by a"
                + " crash); ignored, and overwritten at the next trim",
            nodeId,
            file,
            size - end);
      }
    } catch (IOException e) {
      throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private String checkHeader(FileChannel ch, long size) throws IOException {
    if (size < HEADER_BYTES) {
      return "is too short for its header (" + size + " bytes)";
    }
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    readFully(ch, header, 0);
    if (header.getLong(0) != MAGIC) {
      return "is not a trimmed-token file (bad magic)";
    }
    if (header.getInt(8) != VERSION) {
      return "has unknown version " + header.getInt(8);
    }
    if (header.getInt(12) != nodeId) {
      return "belongs to replica node " + header.getInt(12);
    }
    return null;
  }

  /** Replays the intact records and returns where they end. */
  private long replay(FileChannel ch, long size, TokenVisitor visitor) throws IOException {
    ByteBuffer chunk =
        ByteBuffer.allocate(READ_RECORDS * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    long position = HEADER_BYTES;
    while (position + RECORD_BYTES <= size) {
      chunk.clear();
      chunk.limit(
          (int) Math.min(chunk.capacity(), (size - position) / RECORD_BYTES * RECORD_BYTES));
      readFully(ch, chunk, position);
      for (int at = 0; at < chunk.limit(); at += RECORD_BYTES) {
        if (!intact(chunk, at)) {
          return position;
        }
        visitor.onToken(chunk.getLong(at), chunk.getLong(at + 8), chunk.getLong(at + 16));
        count++;
        position += RECORD_BYTES;
      }
    }
    return position;
  }

  private boolean intact(ByteBuffer buf, int at) {
    crc.reset();
    crc.update(buf.array(), buf.arrayOffset() + at, CRC_OFFSET);
    return buf.getInt(at + CRC_OFFSET) == (int) crc.getValue();
  }

  @Override
  public void add(long session, long sequence, long sn) {
    if (!unsynced.hasRemaining()) {
      try {
        writeOut();
      } catch (IOException e) {
        throw writeFailure(e);
      }
    }
    int at = unsynced.position();
    unsynced.putLong(session).putLong(sequence).putLong(sn).putInt(0);
    crc.reset();
    crc.update(unsynced.array(), unsynced.arrayOffset() + at, CRC_OFFSET);
    unsynced.putInt((int) crc.getValue());
  }

  @Override
  public void sync() {
    if (unsynced.position() == 0 && writtenBytes == intactBytes) {
      return;
    }
    try {
      writeOut();
      force();
      count += (writtenBytes - Math.max(intactBytes, HEADER_BYTES)) / RECORD_BYTES;
      intactBytes = writtenBytes;
    } catch (IOException e) {
      throw writeFailure(e);
    }
  }

  /**
   * Writes the buffered tokens after those written before, without forcing them: a big trim's
   * tokens go out in pieces of the buffer's size. They count as stored only once {@link #sync}
   * forced them; until then a crash may keep or lose any of them, which is harmless (each is a true
   * fact about a record, and the trim they belong to has not happened).
   */
  private void writeOut() throws IOException {
    open();
    unsynced.flip();
    try {
      while (unsynced.hasRemaining()) {
        writtenBytes += channel.write(unsynced, writtenBytes);
      }
    } finally {
      unsynced.clear();
    }
  }

  private StorageException writeFailure(IOException e) {
    writtenBytes = intactBytes; // the next write starts over after the last synced token
    return new StorageException(
        "cannot write trimmed tokens to " + file + ": " + e.getMessage(), e);
  }

  /** Opens the file for appending after its intact part, replacing one that cannot be trusted. */
  private void open() throws IOException {
    if (!loaded) {
      throw new IllegalStateException("load before writing: " + file);
    }
    if (channel != null) {
      return;
    }
    boolean created = !Files.exists(file);
    channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    if (intactBytes == 0) {
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      header.putLong(MAGIC).putInt(VERSION).putInt(nodeId).flip();
      channel.truncate(0);
      while (header.hasRemaining()) {
        channel.write(header, header.position());
      }
      intactBytes = HEADER_BYTES;
    } else if (channel.size() > intactBytes) {
      channel.truncate(intactBytes); // a torn record from before the last crash
    }
    writtenBytes = intactBytes;
    force();
    if (created && durability != DurabilityMode.PROCESS) {
      ops.syncDirectory(file.getParent());
    }
  }

  private void force() throws IOException {
    if (durability != DurabilityMode.PROCESS) {
      ops.force(channel);
    }
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public void compact(TokenFilter keep) {
    sync();
    if (intactBytes == 0) {
      return;
    }
    try {
      closeChannel();
      byte[] kept = keptRecords(keep);
      DurableFiles.writeAtomically(file, kept, ops);
      intactBytes = kept.length;
      writtenBytes = intactBytes;
      count = (kept.length - HEADER_BYTES) / RECORD_BYTES;
    } catch (IOException e) {
      throw new StorageException("cannot compact " + file + ": " + e.getMessage(), e);
    }
  }

  /** The header and the intact records {@code keep} accepts. */
  private byte[] keptRecords(TokenFilter keep) throws IOException {
    byte[] out = new byte[(int) Math.min(intactBytes, 1 << 20)];
    int length = HEADER_BYTES;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      readFully(ch, ByteBuffer.wrap(out, 0, HEADER_BYTES), 0);
      ByteBuffer chunk =
          ByteBuffer.allocate(READ_RECORDS * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (long position = HEADER_BYTES; position < intactBytes; ) {
        chunk.clear();
        chunk.limit((int) Math.min(chunk.capacity(), intactBytes - position));
        readFully(ch, chunk, position);
        for (int at = 0; at < chunk.limit(); at += RECORD_BYTES) {
          if (keep.keep(chunk.getLong(at), chunk.getLong(at + 8), chunk.getLong(at + 16))) {
            if (length + RECORD_BYTES > out.length) {
              out = Arrays.copyOf(out, out.length * 2);
            }
            System.arraycopy(chunk.array(), at, out, length, RECORD_BYTES);
            length += RECORD_BYTES;
          }
        }
        position += chunk.limit();
      }
    }
    return Arrays.copyOf(out, length);
  }

  private static void readFully(FileChannel ch, ByteBuffer dst, long position) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = ch.read(dst, at);
      if (n < 0) {
        throw new IOException("unexpected end of file at byte " + at);
      }
      at += n;
    }
    dst.flip();
  }

  private void closeChannel() throws IOException {
    if (channel != null) {
      FileChannel ch = channel;
      channel = null;
      ch.close();
    }
  }

  @Override
  public void close() {
    try {
      closeChannel();
    } catch (IOException e) {
      LOG.warn("replica {}: closing {} failed", nodeId, file, e);
    }
  }
}
