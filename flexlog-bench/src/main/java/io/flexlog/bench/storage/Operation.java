package io.flexlog.bench.storage;

/** What one {@link Workload#step()} did. */
public enum Operation {
  /** Appended one record, durable per the store's mode. */
  APPEND,
  /** Read one earlier record back and checked its key. */
  READ,
  /** Wanted to append, but the log is full: nothing happened; see {@link RecordLog#makeRoom()}. */
  LOG_FULL
}
