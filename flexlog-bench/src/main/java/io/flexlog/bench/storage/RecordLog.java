package io.flexlog.bench.storage;

/**
 * One benchmark thread's view of a store: it appends records {@code 0, 1, 2, ...} of a {@link
 * RecordPattern} under that thread's keys and reads any of them back by record number.
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
   * @throws IllegalStateException when the store does not have the record
   */
  int read(long recordNumber, byte[] destination);

  /** Records appended so far (and readable): record numbers are {@code 0 .. written() - 1}. */
  long written();

  /**
   * Replaces a full log by an empty one after {@link #append()} returned false; {@link #written()}
   * starts again at 0. Not measured: the caller stops its clock.
   *
   * @throws UnsupportedOperationException for a store that never fills up
   */
  void makeRoom();

  @Override
  void close();
}
