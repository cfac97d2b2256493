package io.flexlog.client.producer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The usual serializers, under Kafka's names. {@code key.serializer} and {@code value.serializer}
 * accept their class names (for example {@code io.flexlog.client.producer.Serializers$String}), or
 * any class with a public no-argument constructor implementing {@link Serializer}.
 */
public final class Serializers {
  private Serializers() {}

  /** Bytes as they are. */
  public static final class ByteArray implements Serializer<byte[]> {
    @Override
    public byte[] serialize(java.lang.String color, byte[] data) {
      return data;
    }
  }

  /** The remaining bytes of a buffer, without moving its position. */
  public static final class ByteBufferSerializer implements Serializer<ByteBuffer> {
    @Override
    public byte[] serialize(java.lang.String color, ByteBuffer data) {
      if (data == null) {
        return null;
      }
      byte[] bytes = new byte[data.remaining()];
      data.duplicate().get(bytes);
      return bytes;
    }
  }

  /** UTF-8. */
  public static final class String implements Serializer<java.lang.String> {
    @Override
    public byte[] serialize(java.lang.String color, java.lang.String data) {
      return data == null ? null : data.getBytes(StandardCharsets.UTF_8);
    }
  }

  /** 8 bytes, big-endian. */
  public static final class Long implements Serializer<java.lang.Long> {
    @Override
    public byte[] serialize(java.lang.String color, java.lang.Long data) {
      return data == null ? null : ByteBuffer.allocate(8).putLong(data).array();
    }
  }

  /** 4 bytes, big-endian. */
  public static final class Integer implements Serializer<java.lang.Integer> {
    @Override
    public byte[] serialize(java.lang.String color, java.lang.Integer data) {
      return data == null ? null : ByteBuffer.allocate(4).putInt(data).array();
    }
  }

  /** 8 bytes, big-endian (IEEE 754). */
  public static final class Double implements Serializer<java.lang.Double> {
    @Override
    public byte[] serialize(java.lang.String color, java.lang.Double data) {
      return data == null ? null : ByteBuffer.allocate(8).putDouble(data).array();
    }
  }

  /** The UUID's canonical string, UTF-8 (as Kafka's UUIDSerializer). */
  public static final class Uuid implements Serializer<UUID> {
    @Override
    public byte[] serialize(java.lang.String color, UUID data) {
      return data == null ? null : data.toString().getBytes(StandardCharsets.UTF_8);
    }
  }

  /** Always null: for records without a key. */
  public static final class Void implements Serializer<java.lang.Void> {
    @Override
    public byte[] serialize(java.lang.String color, java.lang.Void data) {
      return null;
    }
  }
}
