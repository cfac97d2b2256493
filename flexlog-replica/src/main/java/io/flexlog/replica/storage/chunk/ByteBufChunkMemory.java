package io.flexlog.replica.storage.chunk;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Chunk memory reached through a Netty buffer over the chunk's direct memory (a file mapping or
 * llpl's PM mapping): payloads go in with one copy and come out as views without a copy.
 */
public final class ByteBufChunkMemory implements ChunkMemory {
  private final ByteBuffer memory;
  private final ByteBuf view;
  // A private duplicate whose position and limit are moved for CRC updates: no allocation per call.
  private final ByteBuffer crcWindow;
  private final RangeFlusher flusher;

  /**
   * @param memory direct memory of the chunk, position 0, limit = capacity = chunk size; the caller
   *     keeps the memory mapped for as long as this object and its views are used
   */
  public ByteBufChunkMemory(ByteBuffer memory, RangeFlusher flusher) {
    if (!memory.isDirect()) {
      throw new IllegalArgumentException("chunk memory must be direct");
    }
    this.memory = memory;
    // Never released: the base reference keeps refCnt() >= 1, retained views add to it.
    this.view = io.netty.buffer.Unpooled.wrappedBuffer(memory.duplicate());
    this.crcWindow = memory.duplicate();
    this.flusher = flusher;
  }

  @Override
  public int size() {
    return view.capacity();
  }

  @Override
  public int getInt(int offset) {
    return view.getIntLE(offset);
  }

  @Override
  public long getLong(int offset) {
    return view.getLongLE(offset);
  }

  @Override
  public void putInt(int offset, int value) {
    view.setIntLE(offset, value);
  }

  @Override
  public void putLong(int offset, long value) {
    view.setLongLE(offset, value);
  }

  @Override
  public void copyIn(int offset, ByteBuf src, int srcIndex, int length) {
    view.setBytes(offset, src, srcIndex, length);
  }

  @Override
  public void updateCrc(CRC32C crc, int offset, int length) {
    crcWindow.clear().position(offset).limit(offset + length);
    crc.update(crcWindow);
  }

  @Override
  public void copyOut(int offset, ByteBuf dst, int length) {
    dst.writeBytes(view, offset, length);
  }

  @Override
  public ByteBuf readOnlyView(int offset, int length) {
    return view.slice(offset, length).asReadOnly();
  }

  @Override
  public ByteBuf retainedView(int offset, int length) {
    return view.retainedSlice(offset, length).asReadOnly();
  }

  @Override
  public boolean hasRetainedViews() {
    return view.refCnt() > 1;
  }

  @Override
  public ByteBuffer readBuffer(int length) {
    // asReadOnlyBuffer reads the shared buffer's fields only, never its position: safe from any
    // thread.
    ByteBuffer buffer = memory.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    return buffer.limit(length);
  }

  @Override
  public void zero(int offset, int length) {
    view.setZero(offset, length);
  }

  @Override
  public void flush(int offset, int length) {
    flusher.flush(offset, length);
  }
}
