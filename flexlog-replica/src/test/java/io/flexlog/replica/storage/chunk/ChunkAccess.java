package io.flexlog.replica.storage.chunk;

/**
 * Test access to the chunk log under an engine, for the engine tests in other packages that
 * fabricate torn states through the engine's own chunk memory.
 */
public final class ChunkAccess {
  private ChunkAccess() {}

  /** The chunk memory that holds {@code address}. */
  public static ChunkMemory chunkOf(ChunkedLogStorage storage, long address) {
    return storage.chunkOf(address);
  }

  /** The entry's offset in its chunk. */
  public static int offset(long address) {
    return ChunkLog.offset(address);
  }

  /** The sequence of the entry's chunk. */
  public static long chunkSequence(long address) {
    return ChunkLog.chunkSequence(address);
  }
}
