package io.flexlog.replica.storage.pm;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Builds a {@link ByteBuffer} over native memory that the JDK did not allocate (llpl's PM mapping).
 *
 * <p>Why not {@code Unpooled.wrappedBuffer(address, size, false)}: on Java 17 Netty needs the
 * private {@code DirectByteBuffer(long, int)} constructor for it, which is closed to the unnamed
 * module unless the JVM runs with {@code --add-opens java.base/java.nio}. Instead we duplicate a
 * real direct buffer and point its address and capacity at the target memory with {@code
 * sun.misc.Unsafe} (exported by {@code jdk.unsupported}), the technique LMDB's and Chronicle's Java
 * bindings use. The resulting buffer owns nothing: no cleaner ever frees the memory.
 */
final class NativeMemory {
  private static final sun.misc.Unsafe UNSAFE;
  private static final long ADDRESS_FIELD_OFFSET;
  private static final long CAPACITY_FIELD_OFFSET;
  private static final String UNAVAILABLE_REASON;

  static {
    sun.misc.Unsafe unsafe = null;
    long address = -1;
    long capacity = -1;
    String reason = null;
    try {
      Field theUnsafe = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      theUnsafe.setAccessible(true);
      unsafe = (sun.misc.Unsafe) theUnsafe.get(null);
      address = unsafe.objectFieldOffset(Buffer.class.getDeclaredField("address"));
      capacity = unsafe.objectFieldOffset(Buffer.class.getDeclaredField("capacity"));
    } catch (ReflectiveOperationException | RuntimeException e) {
      reason = "cannot reach sun.misc.Unsafe or java.nio.Buffer fields: " + e;
    }
    UNSAFE = unsafe;
    ADDRESS_FIELD_OFFSET = address;
    CAPACITY_FIELD_OFFSET = capacity;
    UNAVAILABLE_REASON = reason;
  }

  private NativeMemory() {}

  /** Null when {@link #wrap} works, else why not. */
  static String unavailableReason() {
    return UNAVAILABLE_REASON;
  }

  /**
   * A little-endian buffer of {@code size} bytes at {@code address}, position 0, limit = capacity.
   * The memory must stay mapped for as long as the buffer (or anything derived from it) is used.
   */
  static ByteBuffer wrap(long address, int size) {
    if (UNAVAILABLE_REASON != null) {
      throw new UnsupportedOperationException(UNAVAILABLE_REASON);
    }
    if (address == 0 || size < 0) {
      throw new IllegalArgumentException("bad native range " + address + "+" + size);
    }
    ByteBuffer buffer = ByteBuffer.allocateDirect(0).duplicate();
    UNSAFE.putLong(buffer, ADDRESS_FIELD_OFFSET, address);
    UNSAFE.putInt(buffer, CAPACITY_FIELD_OFFSET, size);
    buffer.clear();
    return buffer.order(ByteOrder.LITTLE_ENDIAN);
  }
}
