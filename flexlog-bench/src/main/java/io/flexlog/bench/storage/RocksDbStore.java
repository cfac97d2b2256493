package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.rocksdb.CompressionType;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * RocksDB as Boki's storage layer runs it (the paper's baseline, §9.1), with one database per
 * benchmark thread, as FlexLog runs one log per thread (each database in {@code <dir>/db-<thread>},
 * opened by {@link #openLog}), write-ahead log on, and Boki's {@code RocksDBBackend} options: 64
 * MiB memtable, no compression, point-lookup tuning with a 32 MiB block cache, 2 background jobs, 1
 * MiB (WAL-)bytes-per-sync, 256 MiB level base, 16 MiB total WAL. Durability: {@code process} is
 * {@code sync=false} (the WAL is written to the OS, surviving a process crash), {@code fsync} and
 * {@code pmem} are {@code sync=true} (the WAL is synced before a put returns).
 */
public final class RocksDbStore implements RecordStore {
  static final long MIB = 1L << 20;
  static final long WRITE_BUFFER_BYTES = 64 * MIB;
  static final long BLOCK_CACHE_MIB = 32;
  static final int MAX_BACKGROUND_JOBS = 2;
  static final long BYTES_PER_SYNC = MIB;
  static final long MAX_BYTES_FOR_LEVEL_BASE = 256 * MIB;
  static final long MAX_TOTAL_WAL_BYTES = 16 * MIB;

  private final boolean sync;
  private final RecordPattern pattern;
  private final Options options;
  private final WriteOptions writeOptions;
  private final ReadOptions readOptions;
  private final Path dir;
  private final Queue<RocksDB> databases = new ConcurrentLinkedQueue<>();
  private final Queue<RocksDbRecordLog> logs = new ConcurrentLinkedQueue<>();

  /** Creates one database per thread in the empty or missing directory {@code dir}. */
  public RocksDbStore(Path dir, DurabilityMode durability, RecordPattern pattern) {
    RocksDB.loadLibrary();
    this.dir = dir;
    this.sync = durability != DurabilityMode.PROCESS;
    this.pattern = pattern;
    this.options =
        new Options()
            .setCreateIfMissing(true)
            .setMaxBackgroundJobs(MAX_BACKGROUND_JOBS)
            .setBytesPerSync(BYTES_PER_SYNC)
            .setWalBytesPerSync(BYTES_PER_SYNC)
            .setMaxTotalWalSize(MAX_TOTAL_WAL_BYTES)
            .setWriteBufferSize(WRITE_BUFFER_BYTES)
            .setMaxBytesForLevelBase(MAX_BYTES_FOR_LEVEL_BASE)
            .setCompressionType(CompressionType.NO_COMPRESSION)
            .optimizeForPointLookup(BLOCK_CACHE_MIB);
    this.writeOptions = new WriteOptions().setSync(sync).setDisableWAL(false);
    this.readOptions = new ReadOptions();
  }

  @Override
  public String name() {
    return "rocksdb";
  }

  /** Whether every put waits for the WAL to be synced. */
  public boolean sync() {
    return sync;
  }

  /** The RocksDB version inside the rocksdbjni jar. */
  public static String version() {
    RocksDB.loadLibrary();
    return RocksDB.rocksdbVersion().toString();
  }

  @Override
  public String description() {
    return "RocksDB "
        + version()
        + " (rocksdbjni), WAL on, sync="
        + sync
        + ", one DB per thread (as FlexLog runs one log per thread), Boki's options: 64 MiB"
        + " memtable, no compression, point-lookup tuning with a 32 MiB block cache";
  }

  @Override
  public RecordLog openLog(int thread) {
    Path db = dir.resolve("db-" + thread);
    RocksDB database;
    try {
      Files.createDirectories(db);
      database = RocksDB.open(options, db.toString());
    } catch (RocksDBException | IOException e) {
      throw new StorageException("cannot open RocksDB in " + db + ": " + e.getMessage(), e);
    }
    databases.add(database);
    RocksDbRecordLog log =
        new RocksDbRecordLog(database, writeOptions, readOptions, pattern, thread);
    logs.add(log);
    return log;
  }

  @Override
  public void close() {
    for (RocksDbRecordLog log : logs) {
      log.close();
    }
    logs.clear();
    databases.forEach(RocksDB::close);
    databases.clear();
    readOptions.close();
    writeOptions.close();
    options.close();
  }
}
