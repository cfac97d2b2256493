package io.flexlog.replica.storage.chunk;

import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_SEQUENCE_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.ENTRIES_OFFSET;

import io.flexlog.replica.storage.StorageException;
import java.util.Arrays;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.IntArrayQueue;
import org.agrona.collections.Long2LongHashMap;

/**
 * The chunks of one log and their life: which are free, open, sealed, being tiered or draining,
 * their sequences and the map from sequence to chunk index, the free list, and what each holds
 * (pending entries, committed colors) so that dead chunks can be found without reading them.
 *
 * <p><b>Chunk life.</b> Free chunks wait on a free list. The writer ({@link ChunkLog}) takes the
 * next free one with {@link #takeFree}, seals the chunk it was writing and {@link #open}s the new
 * one, whose sequence is made durable before any entry is written into it. A sealed chunk is freed
 * once every entry in it is dead (committed at or below its color's trim point) or has been copied
 * to an SSD segment: it leaves the address map at once, and goes back to the free list, its
 * sequence negated durably, as soon as no {@linkplain ChunkMemory#retainedView retained view} of it
 * is outstanding. A reused chunk is not zeroed: entry CRCs cover the chunk sequence, so entries of
 * its previous life fail their check.
 *
 * <p>Threading: the log's owner thread; not thread-safe. Allocates nothing in steady state (tiering
 * picks allocate a small sort array).
 */
final class ChunkPool {
  // Chunk indexes fit in the low 20 bits of the sort keys below (at most 2^20 chunks, see engines).
  private static final int INDEX_BITS = 20;
  private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;

  private static final byte FREE = 0;
  private static final byte OPEN = 1;
  private static final byte SEALED = 2;
  private static final byte TIERING = 3;
  private static final byte DRAINING = 4;

  private final ChunkMemory[] chunks;
  private final int chunkSize;
  // Per chunk index: the header's sequence (> 0 live, <= 0 free), state, end of entries (sealed
  // chunks), pending entries, entries written, committed colors.
  private final long[] sequence;
  private final byte[] state;
  private final int[] end;
  private final int[] pending;
  private final int[] entries;
  private final ChunkColors colors;
  private final Long2LongHashMap indexBySequence = new Long2LongHashMap(-1L);
  private final IntArrayQueue freeList;
  private final IntArrayList draining = new IntArrayList();
  private long nextChunkSequence = 1;
  private int liveChunks;

  /**
   * Reads every chunk header: chunks with a positive sequence are live (sealed until recovery says
   * otherwise), the others free.
   *
   * @throws StorageException when a header is not a chunk header of this layout and size
   */
  ChunkPool(ChunkMemory[] chunks, int chunkSize) {
    this.chunks = chunks;
    this.chunkSize = chunkSize;
    this.sequence = new long[chunks.length];
    this.state = new byte[chunks.length];
    this.end = new int[chunks.length];
    this.pending = new int[chunks.length];
    this.entries = new int[chunks.length];
    this.colors = new ChunkColors(chunks.length);
    this.freeList = new IntArrayQueue(Math.max(8, chunks.length), -1);
    for (int i = 0; i < chunks.length; i++) {
      long seq = ChunkHeaders.validate(chunks[i], i, chunkSize);
      sequence[i] = seq;
      nextChunkSequence = Math.max(nextChunkSequence, Math.abs(seq) + 1);
      if (seq > 0) {
        state[i] = SEALED; // until recovery says otherwise
        end[i] = chunkSize; // entries can be read while recovery replays them
        indexBySequence.put(seq, i);
        liveChunks++;
      } else {
        freeList.addInt(i);
      }
    }
  }

  // ---------------------------------------------------------------- lookups

  ChunkMemory memory(int index) {
    return chunks[index];
  }

  int chunkSize() {
    return chunkSize;
  }

  int chunkCount() {
    return chunks.length;
  }

  long sequenceOf(int index) {
    return sequence[index];
  }

  /** Where the entries of a sealed or tiering chunk end. */
  int entriesEnd(int index) {
    return end[index];
  }

  /** Chunks that are not free: open, sealed, being tiered, or draining. */
  int liveChunks() {
    return liveChunks;
  }

  /** The index of the live chunk with this sequence, or -1. */
  int indexOfSequence(long chunkSequence) {
    return (int) indexBySequence.get(chunkSequence);
  }

  // ---------------------------------------------------------------- what chunks hold

  void pendingAdded(int index) {
    pending[index]++;
  }

  /** Notes an entry written to the chunk (appended, or found by recovery). */
  void entryAdded(int index) {
    entries[index]++;
  }

  /**
   * Entries in the chunks that can be read: open, sealed or being tiered (trimmed entries whose
   * chunk is not freed yet included). O(chunk count); for status requests.
   */
  long readableEntries() {
    long total = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (state[i] == OPEN || state[i] == SEALED || state[i] == TIERING) {
        total += entries[i];
      }
    }
    return total;
  }

  /** Notes a commit in the chunk; {@code wasPending} when the entry had no SN before. */
  void committed(int index, boolean wasPending, int colorId, long sn) {
    if (wasPending) {
      pending[index]--;
    }
    colors.record(index, colorId, sn);
  }

  /** Starts the replay of a chunk: forgets what it was thought to hold. */
  void resetContents(int index) {
    pending[index] = 0;
    entries[index] = 0;
    colors.reset(index);
  }

  // ---------------------------------------------------------------- chunk life

  /**
   * Takes the next free chunk, after returning drained ones to the free list.
   *
   * @return its index, or -1 when no chunk is free
   * @throws StorageException when chunk sequences are exhausted
   */
  int takeFree() {
    reclaimDrained();
    if (freeList.isEmpty()) {
      return -1;
    }
    if (nextChunkSequence > ChunkHeaders.MAX_SEQUENCE) {
      throw new StorageException(
          "chunk sequences exhausted after "
              + ChunkHeaders.MAX_SEQUENCE
              + " chunks: the log cannot grow");
    }
    return freeList.pollInt();
  }

  /** The writer is done with a chunk: its entries end at {@code entriesEnd}. */
  void seal(int index, int entriesEnd) {
    end[index] = entriesEnd;
    state[index] = SEALED;
  }

  /**
   * Opens a chunk from {@link #takeFree} with the next sequence, durable before the first entry: a
   * chunk with a sequence {@code <= 0} never holds live entries.
   *
   * @return the chunk's sequence
   */
  long open(int index) {
    long seq = nextChunkSequence++;
    ChunkMemory chunk = chunks[index];
    chunk.putLong(CHUNK_SEQUENCE_OFFSET, seq);
    chunk.flush(CHUNK_SEQUENCE_OFFSET, Long.BYTES);
    sequence[index] = seq;
    state[index] = OPEN;
    end[index] = ENTRIES_OFFSET;
    resetContents(index);
    indexBySequence.put(seq, index);
    liveChunks++;
    return seq;
  }

  /** Recovery found the writer's last chunk: it is open again. */
  void reopen(int index) {
    state[index] = OPEN;
  }

  /** New chunks get sequences above {@code sequenceFloor}. */
  void raiseSequenceFloor(long sequenceFloor) {
    nextChunkSequence = Math.max(nextChunkSequence, sequenceFloor + 1);
  }

  /** Frees every sealed chunk without pending entries whose committed entries are all trimmed. */
  void freeDeadChunks(TrimTable trims) {
    for (int i = 0; i < chunks.length; i++) {
      if (state[i] == SEALED && pending[i] == 0 && colors.allTrimmed(i, trims)) {
        release(i);
      }
    }
  }

  /** Frees a live chunk at once, without draining: recovery found a segment that covers it. */
  void freeNow(int index) {
    indexBySequence.remove(sequence[index]);
    markFree(index);
  }

  /** Takes a chunk out of the address map; it returns to the free list once drained. */
  private void release(int index) {
    indexBySequence.remove(sequence[index]);
    state[index] = DRAINING;
    draining.addInt(index);
  }

  /** Returns drained chunks to the free list, their sequence negated durably. */
  void reclaimDrained() {
    for (int k = draining.size() - 1; k >= 0; k--) {
      int index = draining.getInt(k);
      if (chunks[index].hasRetainedViews()) {
        continue;
      }
      draining.fastUnorderedRemove(k);
      markFree(index);
    }
  }

  private void markFree(int index) {
    long freed = -Math.abs(sequence[index]);
    chunks[index].putLong(CHUNK_SEQUENCE_OFFSET, freed);
    chunks[index].flush(CHUNK_SEQUENCE_OFFSET, Long.BYTES);
    sequence[index] = freed;
    state[index] = FREE;
    liveChunks--;
    freeList.addInt(index);
  }

  // ---------------------------------------------------------------- tiering

  /**
   * Picks the oldest live chunks, in sequence order, for the tiering thread: as long as each is
   * sealed and has no pending entry, up to {@code maxBytes} of entries (at least one chunk).
   *
   * @param out receives the chunk indexes
   * @return how many were picked, 0 when the oldest live chunk cannot be tiered yet
   */
  int beginTiering(long maxBytes, int[] out) {
    long[] keys = new long[liveChunks];
    int live = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (state[i] == OPEN || state[i] == SEALED || state[i] == TIERING) {
        keys[live++] = sortKey(i);
      }
    }
    Arrays.sort(keys, 0, live);
    int count = 0;
    long bytes = 0;
    for (int k = 0; k < live && count < out.length; k++) {
      int index = (int) (keys[k] & INDEX_MASK);
      if (state[index] != SEALED || pending[index] > 0) {
        break;
      }
      long chunkBytes = end[index] - ENTRIES_OFFSET;
      if (count > 0 && bytes + chunkBytes > maxBytes) {
        break;
      }
      out[count++] = index;
      bytes += chunkBytes;
    }
    for (int k = 0; k < count; k++) {
      state[out[k]] = TIERING;
    }
    return count;
  }

  /**
   * Ends the tiering of chunks from {@link #beginTiering}: frees them when their entries are
   * durable in a segment, or makes them tierable again when the copy failed.
   */
  void finishTiering(int[] chunkIndexes, int count, boolean moved) {
    for (int k = 0; k < count; k++) {
      int index = chunkIndexes[k];
      if (state[index] != TIERING) {
        throw new IllegalStateException("chunk " + index + " is not being tiered");
      }
      if (moved) {
        release(index);
      } else {
        state[index] = SEALED;
      }
    }
    if (moved) {
      reclaimDrained();
    }
  }

  /** The indexes of the chunks with a positive sequence, in sequence order. */
  int[] liveChunksInSequenceOrder() {
    long[] keys = new long[chunks.length];
    int live = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (sequence[i] > 0) {
        keys[live++] = sortKey(i);
      }
    }
    Arrays.sort(keys, 0, live);
    int[] order = new int[live];
    for (int i = 0; i < live; i++) {
      order[i] = (int) (keys[i] & INDEX_MASK);
    }
    return order;
  }

  /** Sequence in the high bits, index in the low 20. */
  private long sortKey(int index) {
    return (sequence[index] << INDEX_BITS) | index;
  }
}
