package io.flexlog.replica.storage.chunk;

import io.flexlog.core.model.TierUsage;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.TrimPoints;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.function.LongPredicate;

/**
 * What both PM engines share, and the one class of this package they extend: the {@link
 * io.flexlog.replica.storage.LogStorage} contract and the tier's {@link TierableLog} SPI,
 * implemented by a {@link ChunkLog} over the engine's chunks and a {@link TrimTable}. Subclasses
 * map the chunks and the trim table region (formatting them with {@link #formatChunk} and {@link
 * #formatTrimTable} when new), say how a range is made durable, {@link #attach} them, and release
 * their resources on {@link #close()}.
 *
 * <p>{@link #retainedPayload} returns a view of the chunk (no copy) that keeps the chunk from being
 * reused until it is released.
 */
public abstract class ChunkedLogStorage implements TierableLog {
  /** Chunk counts are bounded so chunk indexes fit the sort keys of ChunkPool. */
  protected static final int MAX_CHUNKS = 1 << 20;

  private final DurabilityMode durability;
  private ChunkLog log;
  private boolean closed;

  protected ChunkedLogStorage(DurabilityMode durability) {
    this.durability = durability;
  }

  /**
   * Called once by the subclass constructor after the chunks are mapped and formatted: reads the
   * trim table and every chunk header.
   *
   * @param chunks the chunks, every one formatted ({@link #formatChunk})
   * @param coalesceGapBytes SN words closer than this are flushed as one range: a cache-line flush
   *     engine wants a small gap, a page-granular msync engine a page
   * @param fresh true when the chunks were just formatted: no recovery is needed before appending
   * @param trimRegion the formatted trim table region ({@link #formatTrimTable})
   * @param trimRegionName names the region in error messages
   * @throws StorageException when a chunk header or the trim table is not of this layout
   */
  protected final void attach(
      ChunkMemory[] chunks,
      int chunkSize,
      int coalesceGapBytes,
      boolean fresh,
      ChunkMemory trimRegion,
      String trimRegionName) {
    TrimTable trims = TrimTable.open(trimRegion, trimRegionName);
    this.log = new ChunkLog(chunks, chunkSize, coalesceGapBytes, fresh, trims);
  }

  /** Writes an empty chunk header (sequence 0), zeroing anything after it, and flushes. */
  protected static void formatChunk(ChunkMemory chunk, int chunkIndex, int chunkSize) {
    ChunkHeaders.format(chunk, chunkIndex, chunkSize);
  }

  /** Writes an empty trim table (no trims) and flushes it. */
  protected static void formatTrimTable(ChunkMemory region) {
    TrimTable.format(region);
  }

  /** The chunk memory that holds {@code address}, for engine-level tests. */
  final ChunkMemory chunkOf(long address) {
    ChunkLog chunkLog = open();
    return chunkLog.memory(chunkLog.chunkIndexOf(address));
  }

  @Override
  public final int chunkSize() {
    return open().chunkSize();
  }

  @Override
  public final int chunkCount() {
    return open().chunkCount();
  }

  @Override
  public final boolean holds(long address) {
    return open().holds(address);
  }

  @Override
  public final boolean holdsChunk(long chunkSequence) {
    return open().holdsSequence(chunkSequence);
  }

  @Override
  public final TrimPoints trimPoints() {
    return open().trimPoints();
  }

  @Override
  public final int beginTiering(long maxBytes, int[] chunkIndexes) {
    return open().beginTiering(maxBytes, chunkIndexes);
  }

  @Override
  public final long chunkSequence(int chunkIndex) {
    return open().sequenceOf(chunkIndex);
  }

  @Override
  public final int entriesEnd(int chunkIndex) {
    return open().entriesEnd(chunkIndex);
  }

  /**
   * Tiering thread: reads the chunk's memory only, no owner state, and not through {@link #open()}
   * (the tier checks that it is not closed before it calls this).
   */
  @Override
  public final ByteBuffer readChunk(int chunkIndex, int length) {
    return log.memory(chunkIndex).readBuffer(length);
  }

  @Override
  public final void finishTiering(int[] chunkIndexes, int count, boolean moved) {
    open().finishTiering(chunkIndexes, count, moved);
  }

  @Override
  public final void recover(
      EntryVisitor visitor, LongPredicate coveredBySegment, long sequenceFloor) {
    open().recover(visitor, coveredBySegment, sequenceFloor);
  }

  @Override
  public final long appendPending(
      int shardId,
      int colorId,
      long tokenSession,
      long tokenSequence,
      ByteBuf source,
      int index,
      int length) {
    return open()
        .appendPending(shardId, colorId, tokenSession, tokenSequence, source, index, length);
  }

  @Override
  public final void commit(long address, long sn) {
    open().commit(address, sn);
  }

  @Override
  public final void flush() {
    open().flush();
  }

  @Override
  public final int payloadLength(long address) {
    return open().payloadLength(address);
  }

  @Override
  public final long tokenSession(long address) {
    return open().tokenSession(address);
  }

  @Override
  public final long tokenSequence(long address) {
    return open().tokenSequence(address);
  }

  @Override
  public final ByteBuf payload(long address) {
    return open().payload(address);
  }

  @Override
  public final ByteBuf retainedPayload(long address) {
    return open().retainedPayload(address);
  }

  @Override
  public final int scanCopy(long address, ByteBuf dst, int copyBelow) {
    return open().copyPayload(address, dst, copyBelow);
  }

  @Override
  public final void trim(int colorId, long sn) {
    open().trim(colorId, sn);
  }

  @Override
  public final long trimPoint(int colorId) {
    return open().trimPoint(colorId);
  }

  @Override
  public final void recover(EntryVisitor visitor) {
    open().recover(visitor);
  }

  @Override
  public final long usedBytes() {
    return open().usedBytes();
  }

  @Override
  public final long capacityBytes() {
    return open().capacityBytes();
  }

  /** PM only: no cache, no SSD tier. */
  @Override
  public final TierUsage tierUsage() {
    ChunkLog chunkLog = open();
    return new TierUsage(
        0, 0, chunkLog.entries(), chunkLog.usedBytes(), chunkLog.capacityBytes(), 0, 0, 0);
  }

  @Override
  public final DurabilityMode durability() {
    return durability;
  }

  @Override
  public final void close() {
    if (!closed) {
      closed = true;
      release();
    }
  }

  /** Releases the engine's resources; views handed out before become invalid. */
  protected abstract void release();

  private ChunkLog open() {
    if (closed) {
      throw new IllegalStateException(engineName() + " log storage is closed");
    }
    return log;
  }

  /**
   * @throws StorageException unless {@code chunkBytes} is a multiple of the minimum chunk size
   *     between the minimum and the maximum ({@link ChunkHeaderDescriptor})
   */
  protected static void validateChunkSize(long chunkBytes) {
    if (chunkBytes < ChunkHeaderDescriptor.MIN_CHUNK_SIZE
        || chunkBytes > ChunkHeaderDescriptor.MAX_CHUNK_SIZE
        || chunkBytes % ChunkHeaderDescriptor.MIN_CHUNK_SIZE != 0) {
      throw new StorageException(
          "chunk size "
              + chunkBytes
              + " must be a multiple of "
              + ChunkHeaderDescriptor.MIN_CHUNK_SIZE
              + " between "
              + ChunkHeaderDescriptor.MIN_CHUNK_SIZE
              + " and "
              + ChunkHeaderDescriptor.MAX_CHUNK_SIZE
              + " bytes");
    }
  }
}
