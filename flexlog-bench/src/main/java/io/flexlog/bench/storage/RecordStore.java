package io.flexlog.bench.storage;

/**
 * A storage engine under test, opened once per run in a fresh directory: FlexLog's replica log
 * ({@link FlexLogStore}) or RocksDB ({@link RocksDbStore}). Each benchmark thread works through its
 * own {@link RecordLog}.
 *
 * <p>Threading: {@link #openLog} may be called from each benchmark thread; {@link #close()} once,
 * after every thread has stopped.
 */
public interface RecordStore extends AutoCloseable {
  /** Short name for reports: {@code flexlog} or {@code rocksdb}. */
  String name();

  /** One line: engine, durability and how threads share it. */
  String description();

  /** The log for benchmark thread {@code thread} (0-based), opened empty. */
  RecordLog openLog(int thread);

  /** Closes every log still open and the engine. */
  @Override
  void close();
}
