package io.flexlog.core.protocol;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpooled allocator that remembers every buffer it hands out, so a test can assert that all of
 * them were released: deterministic, unlike the sampling leak detector.
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final List<ByteBuf> allocated = new ArrayList<>();

  TrackingAllocator() {
    super(false);
  }

  /** Registers a buffer the test created itself (for example an inbound chunk). */
  ByteBuf track(ByteBuf buf) {
    allocated.add(buf);
    return buf;
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return track(Unpooled.buffer(initialCapacity, maxCapacity));
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return track(Unpooled.directBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  /** Descriptions of buffers that still hold a reference. */
  List<String> unreleased() {
    List<String> leaks = new ArrayList<>();
    for (ByteBuf buf : allocated) {
      if (buf.refCnt() != 0) {
        leaks.add(buf + " refCnt=" + buf.refCnt());
      }
    }
    return leaks;
  }
}
