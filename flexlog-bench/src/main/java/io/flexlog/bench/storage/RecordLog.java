package io.flexlog.bench.storage;

import java.util.Optional;

/**
 * One benchmark thread's view of a store: it appends records {@code 0, 1, 2, ...} of a {@link
 * RecordPattern} under that thread's keys and reads any record still in the log back by record
 * number: {@link #firstRecord()} to {@link #written()} - 1.
 *
 * <p>Threading: one thread uses a log from {@link RecordStore#openLog} to {@link #close()}.
 */
public interface RecordLog extends AutoCloseable {
  /**
   * Appends record {@link #written()} and makes it durable as the store's durability mode says, as
   * one operation (no batching with other records).
   *
   * @return false, with nothing written, when the log has no room left; see {@link #makeRoom()}
   */
  boolean append();

  /**
   * Appends {@code records} more records in batches, one durability point per batch: filling the
   * log before a measurement, not measured itself.
   */
  void preload(int records);

  /**
   * Copies record {@code recordNumber} into {@code destination}.
   *
   * @return the record's length
   * @throws IllegalStateException when the store does not have the record (never written, or
   *     trimmed)
   */
  int read(long recordNumber, byte[] destination);

  /** Records appended so far: the next append writes record number {@code written()}. */
  long written();

  /** The oldest record still in the log: 0 until {@link #makeRoom()} trimmed some. */
  long firstRecord();

  /**
   * Frees space after {@link #append()} returned false by trimming the oldest records: {@link
   * #firstRecord()} moves up, {@link #written()} keeps counting. Not measured: the caller stops its
   * clock.
   *
   * @throws UnsupportedOperationException for a store that never fills up
   */
  void makeRoom();

  /** The tiered engine's counters and sizes for this log; empty for other engines. */
  default Optional<TierStats> tierStats() {
    return Optional.empty();
  }

  @Override
  void close();
}
