package io.flexlog.client.consumer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The built-in {@link Deserializer}s, usable by class name in the consumer's config. */
public final class Deserializers {
  private Deserializers() {}

  /** The bytes as they are. */
  public static final class ByteArrayDeserializer implements Deserializer<byte[]> {
    @Override
    public byte[] deserialize(String color, byte[] data) {
      return data;
    }
  }

  /**
   * UTF-8 text; malformed input is replaced, as {@link String#String(byte[],
   * java.nio.charset.Charset)} does.
   */
  public static final class StringDeserializer implements Deserializer<String> {
    @Override
    public String deserialize(String color, byte[] data) {
      return data == null ? null : new String(data, StandardCharsets.UTF_8);
    }
  }

  /** A big-endian 8-byte long; any other length is an error. */
  public static final class LongDeserializer implements Deserializer<Long> {
    @Override
    public Long deserialize(String color, byte[] data) {
      if (data == null) {
        return null;
      }
      if (data.length != Long.BYTES) {
        throw new IllegalArgumentException("a long is 8 bytes, the record has " + data.length);
      }
      return ByteBuffer.wrap(data).getLong();
    }
  }

  /** A big-endian 4-byte int; any other length is an error. */
  public static final class IntegerDeserializer implements Deserializer<Integer> {
    @Override
    public Integer deserialize(String color, byte[] data) {
      if (data == null) {
        return null;
      }
      if (data.length != Integer.BYTES) {
        throw new IllegalArgumentException("an int is 4 bytes, the record has " + data.length);
      }
      return ByteBuffer.wrap(data).getInt();
    }
  }

  /** A read-only {@link ByteBuffer} over the bytes, without a copy. */
  public static final class ByteBufferDeserializer implements Deserializer<ByteBuffer> {
    @Override
    public ByteBuffer deserialize(String color, byte[] data) {
      return data == null ? null : ByteBuffer.wrap(data).asReadOnlyBuffer();
    }
  }
}
