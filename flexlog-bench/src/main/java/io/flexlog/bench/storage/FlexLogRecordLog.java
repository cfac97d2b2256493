package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.PmEntryDescriptor;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.StorageException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One thread's FlexLog log, used as a replica uses it with a batch of one: an append is {@code
 * appendPending} + {@code commit} (SN = record number + 1) + {@code flush}, so every record is
 * durable per the mode before the next; a read looks the entry's address up in a primitive array
 * indexed by record number (like the replica's SN index) and copies the payload view into the
 * caller's array at once, never holding the view.
 *
 * <p>Threading: one owner thread, like {@link LogStorage}; {@link #close()} may come from another
 * thread once the owner has stopped.
 */
final class FlexLogRecordLog implements RecordLog {
  static final int SHARD_ID = 0;
  static final int COLOR_ID = 0;

  /** Records per flush while preloading. */
  static final int PRELOAD_BATCH = 1000;

  private final String engine;
  private final Path dir;
  private final long logBytes;
  private final long chunkBytes;
  private final DurabilityMode durability;
  private final int thread;
  private final ByteBuf record;
  private LogStorage storage;
  private long[] addresses;
  private int written;
  private boolean closed;

  FlexLogRecordLog(
      String engine,
      Path dir,
      long logBytes,
      long chunkBytes,
      DurabilityMode durability,
      RecordPattern pattern,
      int thread) {
    this.engine = engine;
    this.dir = dir;
    this.logBytes = logBytes;
    this.chunkBytes = chunkBytes;
    this.durability = durability;
    this.thread = thread;
    this.record = Unpooled.directBuffer(pattern.recordBytes(), pattern.recordBytes());
    pattern.fill(record);
    this.addresses = new long[indexCapacity(logBytes, pattern.recordBytes())];
    try {
      this.storage = openEmpty();
    } catch (RuntimeException e) {
      record.release();
      throw e;
    }
  }

  /** Entries a log of {@code logBytes} can hold at most: the index never has to grow. */
  static int indexCapacity(long logBytes, int recordBytes) {
    long entries = logBytes / PmEntryDescriptor.entryLength(recordBytes) + 1;
    return (int) Math.min(Integer.MAX_VALUE - 8, entries);
  }

  private LogStorage openEmpty() {
    LogStorage log = StorageEngines.open(engine, dir, logBytes, chunkBytes, durability);
    try {
      log.recover((address, shard, color, session, sequence, sn, length) -> {});
    } catch (RuntimeException e) {
      log.close();
      throw e;
    }
    return log;
  }

  @Override
  public boolean append() {
    long recordNumber = written;
    RecordPattern.stamp(record, RecordPattern.key(thread, recordNumber));
    long address = storage.appendPending(SHARD_ID, COLOR_ID, thread + 1L, recordNumber, record);
    if (address == LogStorage.NO_SPACE) {
      return false;
    }
    storage.commit(address, recordNumber + 1);
    storage.flush();
    index(address);
    return true;
  }

  @Override
  public void preload(int records) {
    for (int i = 0; i < records; i++) {
      long recordNumber = written;
      RecordPattern.stamp(record, RecordPattern.key(thread, recordNumber));
      long address = storage.appendPending(SHARD_ID, COLOR_ID, thread + 1L, recordNumber, record);
      if (address == LogStorage.NO_SPACE) {
        storage.flush();
        throw new StorageException(
            "a log of " + logBytes + " bytes cannot hold the preload of " + records + " records");
      }
      storage.commit(address, recordNumber + 1);
      index(address);
      if ((i + 1) % PRELOAD_BATCH == 0) {
        storage.flush();
      }
    }
    storage.flush();
  }

  private void index(long address) {
    if (written == addresses.length) {
      // Only if an engine packs entries tighter than the layout says: grow, rarely.
      addresses = Arrays.copyOf(addresses, (int) Math.min(Integer.MAX_VALUE - 8, written * 2L));
    }
    addresses[written++] = address;
  }

  @Override
  public int read(long recordNumber, byte[] destination) {
    if (recordNumber < 0 || recordNumber >= written) {
      throw new IllegalStateException(
          "record " + recordNumber + " not written; " + written + " records in the log");
    }
    ByteBuf view = storage.payload(addresses[(int) recordNumber]);
    int length = view.readableBytes();
    view.getBytes(view.readerIndex(), destination, 0, length);
    return length;
  }

  @Override
  public long written() {
    return written;
  }

  @Override
  public void makeRoom() {
    storage.close();
    Directories.deleteRecursively(dir);
    written = 0;
    storage = openEmpty();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      storage.close();
      record.release();
    }
  }
}
