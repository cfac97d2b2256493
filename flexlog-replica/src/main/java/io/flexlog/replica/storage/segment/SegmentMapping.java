package io.flexlog.replica.storage.segment;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A segment file's mapping as a reference-counted buffer: the {@link Segment} holds one reference
 * and every retained view of a payload one more; when the last is released the file is unmapped at
 * once, so the space of a deleted segment returns to the file system then, not at some later
 * garbage collection (docs/architecture.md, "Storage tiers").
 *
 * <p>The mapping must be writable for Netty's direct buffer (a private, copy-on-write mapping that
 * nothing writes to); readers only ever get read-only views.
 */
final class SegmentMapping extends UnpooledDirectByteBuf {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentMapping.class);
  private static final MethodHandle INVOKE_CLEANER = invokeCleaner();

  private final ByteBuffer mapped;

  SegmentMapping(ByteBuffer mapped) {
    super(UnpooledByteBufAllocator.DEFAULT, mapped, mapped.capacity());
    this.mapped = mapped;
  }

  @Override
  protected void deallocate() {
    super.deallocate();
    unmap(mapped);
  }

  /**
   * Unmaps a mapping that nothing reads any more; a later access would crash the JVM. Without
   * {@code sun.misc.Unsafe.invokeCleaner} (not in this JVM) the garbage collector unmaps it.
   */
  static void unmap(ByteBuffer mapped) {
    if (INVOKE_CLEANER == null) {
      return;
    }
    try {
      INVOKE_CLEANER.invokeExact(mapped);
    } catch (Throwable e) {
      LOG.warn("cannot unmap a segment, the garbage collector will: {}", e.toString());
    }
  }

  private static MethodHandle invokeCleaner() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field field = unsafeClass.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      Object unsafe = field.get(null);
      return MethodHandles.lookup()
          .findVirtual(
              unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
          .bindTo(unsafe);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LoggerFactory.getLogger(SegmentMapping.class)
          .warn(
              "segments are unmapped by the garbage collector, not when deleted: {}", e.toString());
      return null;
    }
  }
}
