package io.flexlog.replica.storage.pm;

import com.intel.pmem.llpl.MemoryBlock;
import io.flexlog.replica.storage.chunk.ChunkMemory;
import io.flexlog.replica.storage.chunk.RangeFlusher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Fallback chunk memory that goes through llpl's public accessors only, used when the chunk's raw
 * address cannot be obtained (see {@link LlplLogStorage}). It costs a copy more on each side:
 * payloads pass through a scratch array on the way in, and reads return copies instead of views.
 * llpl accessors use the native byte order; values are swapped on big-endian machines so the layout
 * stays little-endian.
 */
final class LlplAccessorChunkMemory implements ChunkMemory {
  private static final boolean SWAP = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

  private final MemoryBlock block;
  private final long base;
  private final int size;
  private final RangeFlusher flusher;
  // Grows to the largest payload seen; owned by the single writer thread.
  private byte[] scratch = new byte[4096];

  LlplAccessorChunkMemory(MemoryBlock block, int size, RangeFlusher flusher) {
    this(block, 0, size, flusher);
  }

  /** A region of {@code size} bytes starting {@code base} bytes into the block. */
  LlplAccessorChunkMemory(MemoryBlock block, long base, int size, RangeFlusher flusher) {
    this.block = block;
    this.base = base;
    this.size = size;
    this.flusher = flusher;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public int getInt(int offset) {
    int value = block.getInt(base + offset);
    return SWAP ? Integer.reverseBytes(value) : value;
  }

  @Override
  public long getLong(int offset) {
    long value = block.getLong(base + offset);
    return SWAP ? Long.reverseBytes(value) : value;
  }

  @Override
  public void putInt(int offset, int value) {
    block.setInt(base + offset, SWAP ? Integer.reverseBytes(value) : value);
  }

  @Override
  public void putLong(int offset, long value) {
    block.setLong(base + offset, SWAP ? Long.reverseBytes(value) : value);
  }

  @Override
  public void copyIn(int offset, ByteBuf src, int srcIndex, int length) {
    if (length == 0) {
      return; // llpl rejects empty ranges
    }
    byte[] bytes = scratch(length);
    src.getBytes(srcIndex, bytes, 0, length);
    block.copyFromArray(bytes, 0, base + offset, length);
  }

  @Override
  public void updateCrc(CRC32C crc, int offset, int length) {
    if (length == 0) {
      return;
    }
    byte[] bytes = scratch(length);
    block.copyToArray(base + offset, bytes, 0, length);
    crc.update(bytes, 0, length);
  }

  @Override
  public void copyOut(int offset, ByteBuf dst, int length) {
    if (length == 0) {
      return; // llpl rejects empty ranges
    }
    byte[] bytes = scratch(length);
    block.copyToArray(base + offset, bytes, 0, length);
    dst.writeBytes(bytes, 0, length);
  }

  @Override
  public ByteBuf readOnlyView(int offset, int length) {
    byte[] copy = new byte[length];
    if (length > 0) {
      block.copyToArray(base + offset, copy, 0, length);
    }
    return Unpooled.wrappedBuffer(copy).asReadOnly();
  }

  @Override
  public ByteBuf retainedView(int offset, int length) {
    return readOnlyView(offset, length); // a copy: the caller's release frees it
  }

  @Override
  public boolean hasRetainedViews() {
    return false; // views are copies
  }

  @Override
  public ByteBuffer readBuffer(int length) {
    // The accessors' scratch array belongs to the owner thread: copy through a private array.
    byte[] copy = new byte[length];
    if (length > 0) {
      block.copyToArray(base, copy, 0, length);
    }
    return ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public void zero(int offset, int length) {
    block.setMemory((byte) 0, base + offset, length);
  }

  @Override
  public void flush(int offset, int length) {
    flusher.flush(offset, length);
  }

  private byte[] scratch(int length) {
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    return scratch;
  }
}
