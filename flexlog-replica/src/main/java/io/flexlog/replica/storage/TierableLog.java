package io.flexlog.replica.storage;

import java.nio.ByteBuffer;
import java.util.function.LongPredicate;

/**
 * The service-provider interface between a PM engine and the SSD tier that sits on top of it
 * ({@code storage.tier.TieredLogStorage}): what the tier needs beyond {@link LogStorage} to move
 * whole chunks of entries to segment files and to recover from both tiers. The PM engines ({@code
 * storage.pm}) implement it through their shared chunk log ({@code storage.chunk}).
 *
 * <p><b>Chunks.</b> The log is made of fixed-size chunks, identified physically by an index ({@code
 * 0 <= index < chunkCount()}) and logically by a chunk sequence, the high half of every address in
 * it. Sequences only increase and are never reused.
 *
 * <p><b>Tiering hand-off.</b> The owner thread picks chunks with {@link #beginTiering}; from then
 * on it neither writes nor frees them, and they stay readable in PM. The tiering thread reads them
 * with {@link #readChunk}, nothing else. The owner ends the hand-off with {@link #finishTiering}:
 * the chunks are freed once their entries are durable in a segment, or become tierable again.
 *
 * <p>Threading: as {@link LogStorage}, one owner thread, except {@link #readChunk}.
 */
public interface TierableLog extends LogStorage {
  /** Bytes of one chunk available to its header and entries. */
  int chunkSize();

  /** The number of chunks, free ones included. */
  int chunkCount();

  /** True when the entry's chunk is live in this log (not freed, not tiered away). */
  boolean holds(long address);

  /** True when a chunk with this sequence is live, also before recovery. */
  boolean holdsChunk(long chunkSequence);

  /** An immutable snapshot of every trim point, for another thread. */
  TrimPoints trimPoints();

  /**
   * Picks the oldest live chunks, in sequence order, for the tiering thread: as long as each is
   * sealed and has no pending entry, up to {@code maxBytes} of entries (at least one chunk). They
   * stay readable here until {@link #finishTiering}.
   *
   * @param chunkIndexes receives the chunk indexes
   * @return how many were picked, 0 when the oldest live chunk cannot be tiered yet
   */
  int beginTiering(long maxBytes, int[] chunkIndexes);

  /** The sequence of a chunk picked by {@link #beginTiering}. */
  long chunkSequence(int chunkIndex);

  /** Where the entries of a chunk picked by {@link #beginTiering} end (an offset in the chunk). */
  int entriesEnd(int chunkIndex);

  /**
   * Tiering thread: a little-endian buffer over bytes {@code [0, length)} of a chunk picked by
   * {@link #beginTiering}, private to the calling thread (a read-only view where the memory is
   * mapped, a copy otherwise). The chunk's header and entries follow the layouts in {@code
   * storage.chunk}.
   */
  ByteBuffer readChunk(int chunkIndex, int length);

  /**
   * Ends the tiering of chunks from {@link #beginTiering}: frees them when {@code moved} (their
   * entries are durable in a segment), or makes them tierable again when the copy failed.
   */
  void finishTiering(int[] chunkIndexes, int count, boolean moved);

  /**
   * {@link #recover} for a log with an SSD tier below it.
   *
   * @param coveredBySegment chunk sequences whose entries a complete SSD segment holds: those
   *     chunks are freed without being replayed (the segment is authoritative)
   * @param sequenceFloor the highest chunk sequence the SSD tier has seen; new chunks get higher
   *     ones
   */
  void recover(EntryVisitor visitor, LongPredicate coveredBySegment, long sequenceFloor);
}
