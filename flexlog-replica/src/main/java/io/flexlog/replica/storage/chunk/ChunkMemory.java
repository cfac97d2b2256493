package io.flexlog.replica.storage.chunk;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The bytes of one chunk as the shared log logic ({@link ChunkLog}) sees them (or of another region
 * of durable memory, such as the trim table); each engine supplies the memory and its own flush.
 * Offsets are relative to the region start; integers are little-endian. Implementations do no
 * bounds checks beyond what the underlying memory does: the caller only passes offsets inside the
 * region.
 *
 * <p>Threading: the owner thread calls every method; {@link #readBuffer} and the getters may also
 * be called by the tiering thread for a chunk the owner no longer writes.
 */
public interface ChunkMemory {
  int size();

  int getInt(int offset);

  long getLong(int offset);

  void putInt(int offset, int value);

  /** One 8-byte store (aligned offsets cannot tear). */
  void putLong(int offset, long value);

  /**
   * Copies {@code length} bytes of {@code src} from {@code srcIndex} without moving its indexes.
   */
  void copyIn(int offset, ByteBuf src, int srcIndex, int length);

  /** Adds {@code length} bytes at {@code offset} to {@code crc}. */
  void updateCrc(CRC32C crc, int offset, int length);

  /** Appends {@code length} bytes at {@code offset} to {@code dst} (its writer index moves). */
  void copyOut(int offset, ByteBuf dst, int length);

  /** A read-only view (or, where the engine cannot map memory into a buffer, a copy). */
  ByteBuf readOnlyView(int offset, int length);

  /**
   * A read-only view the caller owns and must release; while any is unreleased, {@link
   * #hasRetainedViews()} is true and the chunk is not reused.
   */
  ByteBuf retainedView(int offset, int length);

  /** True while a view from {@link #retainedView} is unreleased. */
  boolean hasRetainedViews();

  /**
   * A little-endian buffer over bytes [0, length) for the calling thread alone (a read-only view
   * where the memory is mapped, a copy otherwise).
   */
  ByteBuffer readBuffer(int length);

  void zero(int offset, int length);

  /** Makes the range durable according to the engine's durability mode. */
  void flush(int offset, int length);
}
