package io.flexlog.replica.storage;

import io.flexlog.core.model.TierUsage;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.Executor;

/**
 * The durable log of one replica node: entries of every shard replica the node hosts, in arrival
 * order. Implementations: {@code LlplLogStorage} (persistent memory through llpl), {@code
 * MappedFileLogStorage} (pure Java, for machines without libpmemobj), and {@code TieredLogStorage},
 * which puts an off-heap cache in front of either and moves old entries to SSD segments.
 *
 * <p>An entry is first <em>pending</em> (stored, no SN), then <em>committed</em> (its SN written).
 * Nothing written is durable until {@link #flush()} returns: the replica calls it once per batch,
 * before it asks the sequencer for SNs and before it acknowledges commits. After a crash, {@link
 * #recover} replays exactly the entries whose append was flushed, with the SN if the commit was
 * flushed; a torn entry (partly written, or failing its CRC) is never replayed, nor is a committed
 * entry at or below its color's trim point, nor an abandoned one.
 *
 * <p><b>Addresses</b> are opaque, only ever increase, and stay valid for {@link #payloadLength},
 * {@link #payload}, {@link #retainedPayload} and {@link #commit} for the entry's whole life, also
 * after the storage moved it to another tier and across restarts (recovery reports the same
 * address), so an index of addresses never needs rewriting. An entry's life ends when its color is
 * trimmed at or above its SN: from then on its address may become invalid.
 *
 * <p>Threading: one owner thread calls every method; implementations are not thread-safe. Views and
 * retained buffers may be handed to Netty, which releases them on the same event loop.
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
  default long appendPending(
      int shardId, int colorId, long tokenSession, long tokenSequence, ByteBuf payload) {
    return appendPending(
        shardId,
        colorId,
        tokenSession,
        tokenSequence,
        payload,
        payload.readerIndex(),
        payload.readableBytes());
  }

  /**
   * As {@link #appendPending(int, int, long, long, ByteBuf)} for the {@code length} bytes of {@code
   * source} at {@code index}: a batch frame's records are copied from the frame itself, without a
   * slice per record.
   */
  long appendPending(
      int shardId,
      int colorId,
      long tokenSession,
      long tokenSequence,
      ByteBuf source,
      int index,
      int length);

  /** Writes the SN into a pending entry. Durable after the next {@link #flush()}. */
  void commit(long address, long sn);

  /**
   * The SN an {@link #abandon abandoned} entry is committed at: below every trim point, so the
   * entry is dead like a trimmed one (never replayed, its space reclaimed).
   */
  long ABANDONED_SN = -1L;

  /**
   * Gives up a pending entry that will never get an SN (docs/architecture.md#retention, "Abandoned
   * records"): from now on it is dead, as if committed and trimmed. Durable after the next {@link
   * #flush()}; until then a crash brings it back as pending.
   */
  default void abandon(long address) {
    commit(address, ABANDONED_SN);
  }

  /** Makes every append and commit since the previous flush durable, per {@link #durability()}. */
  void flush();

  /** The payload length of the entry at {@code address}. */
  int payloadLength(long address);

  /**
   * The session half of the token the entry at {@code address} was appended with (the sync phase
   * sends records with their tokens, docs/architecture.md#sync-phase).
   */
  long tokenSession(long address);

  /** The sequence half of the token the entry at {@code address} was appended with. */
  long tokenSequence(long address);

  /**
   * A read-only view of the entry's payload for immediate use by the owner thread: it is valid
   * until the next call on this storage (which may evict, reclaim or reuse the memory behind it).
   * The caller must not release it. To hand a payload to a socket, use {@link #retainedPayload}
   * (retaining the view before the next call, e.g. {@code retainedDuplicate()}, is equivalent).
   */
  ByteBuf payload(long address);

  /**
   * A read-only buffer with the entry's payload that the caller owns and must release once (Netty
   * does so after writing it). Its bytes stay valid until released, whatever the storage does
   * meanwhile (tiering, trimming, cache eviction): the space behind it is not reused while it is
   * held.
   */
  ByteBuf retainedPayload(long address);

  /**
   * {@link #retainedPayload} for a sequential scan (a subscription streaming a backlog): a storage
   * with a cache serves the entry from it when it holds the entry, and otherwise straight from the
   * tier that holds it, without filling the cache. So a scan pays no cache insert and eviction per
   * entry, and does not evict what live readers use (docs/architecture.md#off-heap-cache). Same
   * ownership as {@link #retainedPayload}.
   */
  default ByteBuf scanPayload(long address) {
    return retainedPayload(address);
  }

  /**
   * {@link #scanPayload} for payloads shorter than {@code copyBelow}: appends the payload to {@code
   * dst} (its writer index moves) and returns its length, without a buffer object per entry. A
   * payload of {@code copyBelow} bytes or more is not copied: the result is then {@code -1 -
   * length}, and the caller takes it with {@link #scanPayload}.
   */
  default int scanCopy(long address, ByteBuf dst, int copyBelow) {
    ByteBuf payload = scanPayload(address);
    try {
      int length = payload.readableBytes();
      if (length >= copyBelow) {
        return -1 - length;
      }
      dst.writeBytes(payload, payload.readerIndex(), length);
      return length;
    } finally {
      payload.release();
    }
  }

  /**
   * Marks every committed entry of {@code colorId} with an SN {@code <= sn} dead. Durable when it
   * returns (appends and commits before it are flushed first). A value at or below the current trim
   * point changes nothing; pending entries are never trimmed. Space is reclaimed lazily and only in
   * whole units: a PM chunk once every entry in it is dead or on SSD, an SSD segment once every
   * entry in it is dead.
   */
  void trim(int colorId, long sn);

  /** The color's trim point: every committed entry at or below it is dead; 0 if never trimmed. */
  long trimPoint(int colorId);

  /**
   * Replays every live entry in address order, pending ones with {@code sn == 0}. Called once,
   * before the first append; it also positions the writer after the last valid entry and erases any
   * torn tail so that a later crash cannot resurrect it. Trim points are available before it.
   */
  void recover(EntryVisitor visitor);

  /** Bytes of log space (persistent memory) in use, entry headers included. */
  long usedBytes();

  /** Total bytes of log space (persistent memory). */
  long capacityBytes();

  /**
   * Records and bytes per tier (DRAM cache, PM, SSD segments), for status requests
   * (docs/operations.md#status). Owner thread; costs O(chunks + segments), never O(records).
   */
  TierUsage tierUsage();

  /**
   * Gives the storage its owner's executor (the owner's event loop), called once by the owner
   * before the first append. A storage that finishes work on a background thread (the tier's
   * finished SSD segments) posts the task that applies it there, so the owner need not wait for its
   * next flush; a storage without background work ignores it, as the default does.
   */
  default void wakeOwnerWith(Executor ownerExecutor) {}

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
