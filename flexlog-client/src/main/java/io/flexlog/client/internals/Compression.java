package io.flexlog.client.internals;

import io.flexlog.core.config.ConfigException;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.record.RecordFormatDescriptor;
import java.util.Locale;

/**
 * The value codecs of record format 1 (docs/protocol.md#record-format): {@code none}, {@code lz4}
 * (a raw lz4 block, lz4-java {@code at.yawk.lz4:lz4-java}) and {@code zstd} (one zstd frame,
 * zstd-jni {@code com.github.luben:zstd-jni}). Both libraries are optional dependencies of the
 * client: an application that compresses, or reads compressed records, puts them on its class path;
 * without them the client loads neither. Thread-safe.
 */
public final class Compression {
  private static final int ZSTD_LEVEL = 3;

  private Compression() {}

  /**
   * The codec id of a {@code compression.type} value.
   *
   * @throws ConfigException for an unknown name, or a codec whose library is not on the class path
   */
  public static int codec(String name) {
    int codec =
        switch (name.toLowerCase(Locale.ROOT)) {
          case "none" -> RecordFormatDescriptor.COMPRESSION_NONE;
          case "lz4" -> RecordFormatDescriptor.COMPRESSION_LZ4;
          case "zstd" -> RecordFormatDescriptor.COMPRESSION_ZSTD;
          default ->
              throw ConfigException.invalid(
                  "compression.type", name, "must be one of none, lz4, zstd");
        };
    String missing = missingLibrary(codec);
    if (missing != null) {
      throw ConfigException.of(
          "compression.type", name, "compression.type=" + name + " needs " + missing);
    }
    return codec;
  }

  /** The name of a codec id. */
  public static String name(int codec) {
    return switch (codec) {
      case RecordFormatDescriptor.COMPRESSION_LZ4 -> "lz4";
      case RecordFormatDescriptor.COMPRESSION_ZSTD -> "zstd";
      default -> "none";
    };
  }

  /** Compresses {@code value}; for {@code none}, returns it as is. */
  public static byte[] compress(int codec, byte[] value) {
    return switch (codec) {
      case RecordFormatDescriptor.COMPRESSION_LZ4 -> Lz4.compress(value);
      case RecordFormatDescriptor.COMPRESSION_ZSTD -> Zstd.compress(value);
      default -> value;
    };
  }

  /**
   * Decompresses {@code stored} into a value of {@code valueLength} bytes.
   *
   * @throws FlexLogException if the codec's library is missing or the bytes do not decompress to
   *     exactly that length
   */
  public static byte[] decompress(int codec, byte[] stored, int valueLength) {
    if (codec == RecordFormatDescriptor.COMPRESSION_NONE) {
      return stored;
    }
    String missing = missingLibrary(codec);
    if (missing != null) {
      throw new FlexLogException(
          "cannot read a record compressed with " + name(codec) + ": " + missing);
    }
    try {
      return codec == RecordFormatDescriptor.COMPRESSION_LZ4
          ? Lz4.decompress(stored, valueLength)
          : Zstd.decompress(stored, valueLength);
    } catch (RuntimeException e) {
      throw new FlexLogException(
          "record value does not decompress with " + name(codec) + ": " + e.getMessage(), e);
    }
  }

  private static String missingLibrary(int codec) {
    String probe =
        switch (codec) {
          case RecordFormatDescriptor.COMPRESSION_LZ4 -> "net.jpountz.lz4.LZ4Factory";
          case RecordFormatDescriptor.COMPRESSION_ZSTD -> "com.github.luben.zstd.Zstd";
          default -> null;
        };
    if (probe == null) {
      return null;
    }
    try {
      Class.forName(probe, false, Compression.class.getClassLoader());
      return null;
    } catch (ClassNotFoundException e) {
      return codec == RecordFormatDescriptor.COMPRESSION_LZ4
          ? "at.yawk.lz4:lz4-java on the class path"
          : "com.github.luben:zstd-jni on the class path";
    }
  }

  /** Loaded only when lz4 is used, so the client runs without lz4-java. */
  private static final class Lz4 {
    private static final net.jpountz.lz4.LZ4Factory FACTORY =
        net.jpountz.lz4.LZ4Factory.fastestInstance();

    static byte[] compress(byte[] value) {
      return FACTORY.fastCompressor().compress(value);
    }

    static byte[] decompress(byte[] stored, int valueLength) {
      byte[] value = new byte[valueLength];
      int n = FACTORY.safeDecompressor().decompress(stored, 0, stored.length, value, 0);
      if (n != valueLength) {
        throw new IllegalStateException(n + " bytes instead of " + valueLength);
      }
      return value;
    }
  }

  /** Loaded only when zstd is used, so the client runs without zstd-jni. */
  private static final class Zstd {
    static byte[] compress(byte[] value) {
      return com.github.luben.zstd.Zstd.compress(value, ZSTD_LEVEL);
    }

    static byte[] decompress(byte[] stored, int valueLength) {
      byte[] value = com.github.luben.zstd.Zstd.decompress(stored, valueLength);
      if (value.length != valueLength) {
        throw new IllegalStateException(value.length + " bytes instead of " + valueLength);
      }
      return value;
    }
  }
}
