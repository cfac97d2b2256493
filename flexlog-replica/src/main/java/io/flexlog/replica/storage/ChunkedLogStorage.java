package io.flexlog.replica.storage;

import io.netty.buffer.ByteBuf;

/**
 * What both engines share: the {@link LogStorage} contract implemented by a {@link ChunkLog} over
 * the engine's chunks and a {@link TrimTable}. Subclasses open the chunks and the trim table, say
 * how a range is made durable, and release their resources on {@link #close()}.
 *
 * <p>{@link #retainedPayload} returns a view of the chunk (no copy) that keeps the chunk from being
 * reused until it is released.
 */
abstract class ChunkedLogStorage implements LogStorage {
  /** Chunk counts are bounded so chunk indexes fit the recovery sort key (see ChunkLog). */
  static final int MAX_CHUNKS = 1 << 20;

  private final DurabilityMode durability;
  private ChunkLog log;
  private boolean closed;

  ChunkedLogStorage(DurabilityMode durability) {
    this.durability = durability;
  }

  /** Called once by the subclass constructor after the chunks are mapped. */
  final void attach(ChunkLog chunkLog) {
    this.log = chunkLog;
  }

  /** The chunk memory, for engine-level tests that fabricate torn states. */
  abstract ChunkMemory chunk(int index);

  /** The chunk memory that holds {@code address}, for engine-level tests. */
  final ChunkMemory chunkOf(long address) {
    return chunk(open().chunkIndexOf(address));
  }

  /** The shared log logic, for the tiered engine that moves its chunks to SSD. */
  final ChunkLog chunkLog() {
    return open();
  }

  /** Bytes of one chunk available to its header and entries. */
  final int chunkSize() {
    return open().chunkSize();
  }

  final int chunkCount() {
    return open().chunkCount();
  }

  @Override
  public final long appendPending(
      int shardId, int colorId, long tokenSession, long tokenSequence, ByteBuf payload) {
    return open().appendPending(shardId, colorId, tokenSession, tokenSequence, payload);
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
  public final ByteBuf payload(long address) {
    return open().payload(address);
  }

  @Override
  public final ByteBuf retainedPayload(long address) {
    return open().retainedPayload(address);
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
  abstract void release();

  private ChunkLog open() {
    if (closed) {
      throw new IllegalStateException(engineName() + " log storage is closed");
    }
    return log;
  }

  static void validateChunkSize(long chunkBytes) {
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
