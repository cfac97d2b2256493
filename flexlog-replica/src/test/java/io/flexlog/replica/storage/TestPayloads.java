package io.flexlog.replica.storage;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/** Deterministic payloads: the bytes of token sequence {@code n} can be recomputed anywhere. */
public final class TestPayloads {
  private TestPayloads() {}

  public static byte[] bytes(long tokenSequence, int length) {
    byte[] bytes = new byte[length];
    long x = tokenSequence * 0x9E3779B97F4A7C15L + 1;
    for (int i = 0; i < length; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      bytes[i] = (byte) x;
    }
    return bytes;
  }

  /** A length in [0, max] that depends only on the token sequence, 0 included. */
  public static int length(long tokenSequence, int max) {
    long mixed = (tokenSequence * 0xBF58476D1CE4E5B9L) >>> 33;
    return (int) (mixed % (max + 1));
  }

  public static byte[] copy(ByteBuf view) {
    return ByteBufUtil.getBytes(view, view.readerIndex(), view.readableBytes(), true);
  }
}
