package io.flexlog.replica.storage;

import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
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
 * its CRC: {@link #load} stops before it and the next {@link #sync} overwrites it. A rewrite down
 * to the tokens still remembered ({@link #compactIfGrown}) runs on a thread of its own ({@code
 * flexlog-trimmed-tokens-N}) into {@value #FILE_NAME}{@value #COMPACT_SUFFIX}, so the event loop
 * never waits for it; the next {@link #sync} after it ends appends the tokens synced meanwhile,
 * forces it and renames it over the file. A leftover {@code .compact} file from a crash is never
 * read.
 *
 * <p>{@link #load} trusts nothing it cannot check: a missing file, or one with a bad header (magic,
 * version, another node's id), holds no tokens (a warning names the reason), and the first {@link
 * #sync} replaces it. Loading never writes.
 */
public final class TrimmedTokenFile implements TrimmedTokenStore {
  private static final Logger LOG = LoggerFactory.getLogger(TrimmedTokenFile.class);

  /** The file's name in the data directory. */
  public static final String FILE_NAME = "trimmed-tokens";

  /** The store is not rewritten below this many tokens (2 MiB). */
  static final long MIN_COMPACTION = 1 << 16;

  /** Suffix of the file a background rewrite writes before it is renamed over the store. */
  static final String COMPACT_SUFFIX = ".compact";

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
  private final long minCompaction;
  private final Path compactFile;
  private ExecutorService compactor;
  private Future<Compacted> compaction;
  private long compactAbove;
  private long compactions;

  /**
   * The file in {@code dataDir} of replica {@code nodeId}, whose log runs in {@code durability}.
   */
  public TrimmedTokenFile(Path dataDir, int nodeId, DurabilityMode durability) {
    this(dataDir, nodeId, durability, DurableFiles.REAL);
  }

  /** With the file-system steps given, for tests. */
  public TrimmedTokenFile(
      Path dataDir, int nodeId, DurabilityMode durability, DurableFiles.FileOps ops) {
    this(dataDir, nodeId, durability, ops, MIN_COMPACTION);
  }

  /** With the file-system steps and the smallest store that is rewritten given, for tests. */
  TrimmedTokenFile(
      Path dataDir,
      int nodeId,
      DurabilityMode durability,
      DurableFiles.FileOps ops,
      long minCompaction) {
    this.file = dataDir.resolve(FILE_NAME);
    this.compactFile = dataDir.resolve(FILE_NAME + COMPACT_SUFFIX);
    this.nodeId = nodeId;
    this.durability = durability;
    this.ops = ops;
    this.minCompaction = minCompaction;
    this.compactAbove = minCompaction;
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
      compactAbove = Math.max(minCompaction, 2 * count);
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
    if (unsynced.position() > 0 || writtenBytes != intactBytes) {
      try {
        writeOut();
        force();
        count += (writtenBytes - Math.max(intactBytes, HEADER_BYTES)) / RECORD_BYTES;
        intactBytes = writtenBytes;
      } catch (IOException e) {
        throw writeFailure(e);
      }
    }
    finishCompaction();
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
  public boolean compactIfGrown(long mostKept, Supplier<TokenFilter> filter) {
    if (compaction != null || count <= Math.max(compactAbove, 2 * mostKept) || intactBytes == 0) {
      return false;
    }
    TokenFilter keep = filter.get();
    long end = intactBytes;
    long started = System.nanoTime();
    compaction = compactor().submit(() -> writeKept(keep, end, started));
    return true;
  }

  @Override
  public long compactions() {
    return compactions;
  }

  /** A background rewrite's result: the kept tokens of {@code [header, snapshotEnd)}. */
  private record Compacted(long snapshotEnd, long keptBytes, long readTokens, long startedNs) {}

  /** On the compactor thread: writes the header and the kept tokens below {@code end}, forced. */
  private Compacted writeKept(TokenFilter keep, long end, long started) throws IOException {
    long read = 0;
    long written = 0;
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
        FileChannel out =
            FileChannel.open(
                compactFile,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      readFully(in, header, 0);
      written += writeFully(out, header, 0);
      ByteBuffer chunk =
          ByteBuffer.allocate(READ_RECORDS * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      ByteBuffer kept =
          ByteBuffer.allocate(READ_RECORDS * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (long position = HEADER_BYTES; position < end; ) {
        chunk.clear();
        chunk.limit((int) Math.min(chunk.capacity(), end - position));
        readFully(in, chunk, position);
        for (int at = 0; at < chunk.limit(); at += RECORD_BYTES) {
          read++;
          if (keep.keep(chunk.getLong(at), chunk.getLong(at + 8), chunk.getLong(at + 16))) {
            kept.put(chunk.array(), at, RECORD_BYTES);
          }
        }
        position += chunk.limit();
        kept.flip();
        written += writeFully(out, kept, written);
        kept.clear();
      }
      ops.force(out);
    }
    return new Compacted(end, written, read, started);
  }

  /**
   * On the owner thread, once the background rewrite is done: appends the tokens synced since its
   * snapshot, forces it and renames it over the file. Every step before the rename leaves the old
   * file, complete, in place.
   */
  private void finishCompaction() {
    if (compaction == null || !compaction.isDone()) {
      return;
    }
    Future<Compacted> done = compaction;
    compaction = null;
    Compacted result;
    try {
      result = done.get();
    } catch (ExecutionException e) {
      failedCompaction(e.getCause());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    long tail = intactBytes - result.snapshotEnd();
    try {
      try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
          FileChannel out = FileChannel.open(compactFile, StandardOpenOption.WRITE)) {
        out.position(result.keptBytes());
        for (long from = result.snapshotEnd(); from < intactBytes; ) {
          from += in.transferTo(from, intactBytes - from, out);
        }
        ops.force(out);
      }
      ops.rename(compactFile, file);
    } catch (IOException e) {
      failedCompaction(e);
      return;
    }
    try {
      ops.syncDirectory(file.getParent());
    } catch (IOException e) {
      LOG.warn("replica {}: cannot force the rename of {} to disk", nodeId, file, e);
    }
    try {
      closeChannel(); // it wrote the old file; the next write opens the new one
    } catch (IOException e) {
      LOG.warn("replica {}: closing the replaced {} failed", nodeId, file, e);
    }
    long before = count;
    intactBytes = result.keptBytes() + tail;
    writtenBytes = intactBytes;
    count = (intactBytes - HEADER_BYTES) / RECORD_BYTES;
    compactAbove = Math.max(minCompaction, 2 * count);
    compactions++;
    LOG.info(
        "replica {}: rewrote {} in the background in {} ms: {} of {} tokens kept, {} added"
            + " meanwhile",
        nodeId,
        file,
        (System.nanoTime() - result.startedNs()) / 1_000_000,
        (result.keptBytes() - HEADER_BYTES) / RECORD_BYTES,
        result.readTokens(),
        before - result.readTokens());
  }

  private void failedCompaction(Throwable cause) {
    compactAbove = Math.max(minCompaction, 2 * count); // try again once it has doubled again
    LOG.warn("replica {}: rewriting {} failed; it stays as it was", nodeId, file, cause);
  }

  private ExecutorService compactor() {
    if (compactor == null) {
      compactor =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread thread = new Thread(r, "flexlog-trimmed-tokens-" + nodeId);
                thread.setDaemon(true);
                return thread;
              });
    }
    return compactor;
  }

  /** Waits for a running background rewrite to end (tests); the next sync puts it in place. */
  void awaitCompaction() throws Exception {
    if (compaction != null) {
      try {
        compaction.get();
      } catch (ExecutionException e) {
        // reported by the next sync
      }
    }
  }

  private static long writeFully(FileChannel ch, ByteBuffer src, long position) throws IOException {
    long at = position;
    while (src.hasRemaining()) {
      at += ch.write(src, at);
    }
    return at - position;
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
    if (compactor != null) {
      compactor.shutdownNow(); // an unfinished rewrite is dropped: the store is complete without it
    }
    try {
      closeChannel();
    } catch (IOException e) {
      LOG.warn("replica {}: closing {} failed", nodeId, file, e);
    }
  }
}
