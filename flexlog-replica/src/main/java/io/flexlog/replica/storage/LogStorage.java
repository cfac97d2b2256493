package io.flexlog.replica.storage;

import io.netty.buffer.ByteBuf;

/**
 * The durable log of one replica node: entries of every shard replica the node hosts, in arrival
 * order. Implementations: {@code LlplLogStorage} (persistent memory through llpl) and {@code
 * MappedFileLogStorage} (pure Java, for machines without libpmemobj). The tiered engine (cache and
 * SSD segments) wraps this interface.
 *
 * <p>An entry is first <em>pending</em> (stored, no SN), then <em>committed</em> (its SN written).
 * Nothing written is durable until {@link #flush()} returns: the replica calls it once per batch,
 * before it asks the sequencer for SNs and before it acknowledges commits. After a crash, {@link
 * #recover} replays exactly the entries whose append was flushed, with the SN if the commit was
 * flushed; a torn entry (partly written, or failing its CRC) is never replayed.
 *
 * <p>Threading: one owner thread calls every method; implementations are not thread-safe.
 */
public interface LogStorage extends AutoCloseable {
  /** Returned by {@link #appendPending} when the log has no room for the entry. */
  long NO_SPACE = -1L;

  /**
   * Copies one entry into the log as pending. The payload is copied once, straight into the log;
   * the caller keeps ownership of {@code payload} and its reader index is not moved.
   *
   * @return the entry's address, an opaque handle for the other methods, or {@link #NO_SPACE}
   */
  long appendPending(
      int shardId, int colorId, long tokenSession, long tokenSequence, ByteBuf payload);

  /** Writes the SN into a pending entry. Durable after the next {@link #flush()}. */
  void commit(long address, long sn);

  /** Makes every append and commit since the previous flush durable, per {@link #durability()}. */
  void flush();

  /** The payload length of the entry at {@code address}. */
  int payloadLength(long address);

  /**
   * A read-only view of the entry's payload, valid until the storage is closed (entries are never
   * moved or overwritten while the storage is open in this version). The caller must not release
   * it; Netty may write it to a socket directly.
   */
  ByteBuf payload(long address);

  /**
   * Replays every valid entry in append order, pending ones with {@code sn == 0}. Called once,
   * before the first append; it also positions the writer after the last valid entry and erases any
   * torn tail so that a later crash cannot resurrect it.
   */
  void recover(EntryVisitor visitor);

  /** Bytes of log space in use, entry headers included. */
  long usedBytes();

  /** Total bytes of log space. */
  long capacityBytes();

  /** Which engine this is, for logs and the start-up banner. */
  String engineName();

  DurabilityMode durability();

  @Override
  void close();

  /** Receives entries from {@link #recover}. */
  @FunctionalInterface
  interface EntryVisitor {
    void onEntry(
        long address,
        int shardId,
        int colorId,
        long tokenSession,
        long tokenSequence,
        long sn,
        int payloadLength);
  }
}
