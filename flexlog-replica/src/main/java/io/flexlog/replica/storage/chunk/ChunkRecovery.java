package io.flexlog.replica.storage.chunk;

import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.ENTRIES_OFFSET;

import io.flexlog.replica.storage.LogStorage;
import java.util.function.LongPredicate;

/**
 * The recovery scan of a chunk log: replays the live entries in address order and leaves every
 * chunk sealed at the end of its valid entries.
 *
 * <p>Chunks are read in sequence order and, inside a chunk, entries in order up to the first one
 * that fails its length or CRC check. Whatever follows that point in the chunk is erased (zeroed
 * and flushed), so a stale entry that happens to pass its CRC can never reappear after the writer
 * overwrites the torn one. A torn entry ends only its own chunk: later chunks are still read. After
 * a process crash only the last chunk can have a torn entry; after a machine crash in {@code
 * fsync}/{@code pmem} mode unflushed writes may reach the media in any order, so an earlier chunk
 * can lose unflushed entries while a later one keeps some. Those entries were never acknowledged,
 * each is self-validating by CRC, and the replica treats recovered pending entries as new requests,
 * so they are kept as part of the log rather than rejected. Committed entries at or below their
 * color's trim point are not replayed.
 *
 * <p>Threading: the log's owner thread, once, before the first append.
 */
final class ChunkRecovery {
  private final ChunkPool pool;
  private final TrimTable trims;
  private final EntryChecksum checksum;

  ChunkRecovery(ChunkPool pool, TrimTable trims, EntryChecksum checksum) {
    this.pool = pool;
    this.trims = trims;
    this.checksum = checksum;
  }

  /**
   * Replays every live chunk, frees those a segment covers, and seals the others at the end of
   * their valid entries.
   *
   * @param coveredBySegment chunk sequences whose entries a complete SSD segment holds: those
   *     chunks are freed without being replayed (the segment is authoritative)
   * @return the index of the replayed chunk with the highest sequence, where the writer continues,
   *     or -1 when no chunk was replayed
   */
  int replay(LogStorage.EntryVisitor visitor, LongPredicate coveredBySegment) {
    int chunkSize = pool.chunkSize();
    int last = -1;
    for (int index : pool.liveChunksInSequenceOrder()) {
      if (coveredBySegment.test(pool.sequenceOf(index))) {
        pool.freeNow(index);
        continue;
      }
      int entriesEnd = replayChunk(index, visitor);
      ChunkHeaders.eraseNonZero(pool.memory(index), entriesEnd, chunkSize);
      pool.seal(index, entriesEnd);
      last = index;
    }
    return last;
  }

  /** Replays the chunk's valid entries; returns where they end. */
  private int replayChunk(int index, LogStorage.EntryVisitor visitor) {
    ChunkMemory chunk = pool.memory(index);
    long seq = pool.sequenceOf(index);
    int chunkSize = pool.chunkSize();
    pool.resetContents(index);
    int at = ENTRIES_OFFSET;
    while (at + PmEntryDescriptor.HEADER_LENGTH <= chunkSize) {
      int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
      if (length < 0 || length > chunkSize - at - PmEntryDescriptor.HEADER_LENGTH) {
        break;
      }
      if (checksum.compute(chunk, seq, at, length)
          != chunk.getInt(at + PmEntryDescriptor.CRC_OFFSET)) {
        break;
      }
      int colorId = chunk.getInt(at + PmEntryDescriptor.COLOR_OFFSET);
      long sn = chunk.getLong(at + PmEntryDescriptor.SN_OFFSET);
      pool.entryAdded(index);
      if (sn == PmEntryDescriptor.PENDING_SN) {
        pool.pendingAdded(index);
      } else {
        pool.committed(index, false, colorId, sn);
      }
      if (!trims.isTrimmed(colorId, sn)) {
        visitor.onEntry(
            ChunkLog.address(seq, at),
            chunk.getInt(at + PmEntryDescriptor.SHARD_OFFSET),
            colorId,
            chunk.getLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET),
            chunk.getLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET),
            sn,
            length);
      }
      at += (int) PmEntryDescriptor.entryLength(length);
    }
    return at;
  }
}
