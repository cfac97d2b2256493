package io.flexlog.bench.storage;

import io.flexlog.replica.storage.StorageException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One thread's records in its own RocksDB database: record {@code n} of thread {@code t} is the key
 * {@link RecordPattern#key}{@code (t, n)} as 8 big-endian bytes, so each thread's appends arrive in
 * key order, as Boki's sequence-number keys do. An append is one {@code put} with the store's write
 * options; a read is one {@code get} into the caller's array (RocksDB's single-copy read). Puts go
 * through direct buffers, the cheapest path through JNI.
 *
 * <p>Threading: one owner thread; the database belongs to the store, which closes it.
 */
final class RocksDbRecordLog implements RecordLog {
  /** Records per write batch while preloading. */
  static final int PRELOAD_BATCH = 1000;

  private final RocksDB db;
  private final WriteOptions writeOptions;
  private final ReadOptions readOptions;
  private final int thread;
  private final ByteBuffer putKey = ByteBuffer.allocateDirect(Long.BYTES);
  private final ByteBuffer putValue;
  private final byte[] getKey = new byte[Long.BYTES];
  private final RecordPattern pattern;
  private long written;

  RocksDbRecordLog(
      RocksDB db,
      WriteOptions writeOptions,
      ReadOptions readOptions,
      RecordPattern pattern,
      int thread) {
    this.db = db;
    this.writeOptions = writeOptions;
    this.readOptions = readOptions;
    this.pattern = pattern;
    this.thread = thread;
    this.putKey.order(ByteOrder.BIG_ENDIAN);
    this.putValue = ByteBuffer.allocateDirect(pattern.recordBytes());
    pattern.fill(putValue);
  }

  @Override
  public boolean append() {
    long key = RecordPattern.key(thread, written);
    putKey.clear();
    putKey.putLong(0, key);
    putValue.clear();
    RecordPattern.stamp(putValue, key);
    try {
      db.put(writeOptions, putKey, putValue);
    } catch (RocksDBException e) {
      throw new StorageException("RocksDB put of key " + key + " failed: " + e.getMessage(), e);
    }
    written++;
    return true;
  }

  @Override
  public void preload(int records) {
    try (WriteBatch batch = new WriteBatch()) {
      for (int i = 0; i < records; i++) {
        long key = RecordPattern.key(thread, written + i);
        batch.put(encodeKey(key, new byte[Long.BYTES]), pattern.newRecord(key));
        if ((i + 1) % PRELOAD_BATCH == 0 || i == records - 1) {
          db.write(writeOptions, batch);
          batch.clear();
        }
      }
    } catch (RocksDBException e) {
      throw new StorageException("RocksDB preload failed: " + e.getMessage(), e);
    }
    written += records;
  }

  @Override
  public int read(long recordNumber, byte[] destination) {
    if (recordNumber < 0 || recordNumber >= written) {
      throw new IllegalStateException(
          "record " + recordNumber + " not written; " + written + " records in the log");
    }
    long key = RecordPattern.key(thread, recordNumber);
    int length;
    try {
      length = db.get(readOptions, encodeKey(key, getKey), destination);
    } catch (RocksDBException e) {
      throw new StorageException("RocksDB get of key " + key + " failed: " + e.getMessage(), e);
    }
    if (length == RocksDB.NOT_FOUND) {
      throw new IllegalStateException("RocksDB has no record for key " + key);
    }
    return length;
  }

  private static byte[] encodeKey(long key, byte[] into) {
    for (int i = 0; i < Long.BYTES; i++) {
      into[i] = (byte) (key >>> (8 * (Long.BYTES - 1 - i)));
    }
    return into;
  }

  @Override
  public long written() {
    return written;
  }

  /** RocksDB keeps every record: the benchmark never deletes any. */
  @Override
  public long firstRecord() {
    return 0;
  }

  /** RocksDB grows on disk and never reports a full log. */
  @Override
  public void makeRoom() {
    throw new UnsupportedOperationException("a RocksDB log is never full");
  }

  @Override
  public void close() {
    // The buffers are collected with the object; the database belongs to the store.
  }
}
