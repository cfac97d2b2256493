package io.flexlog.server.config;

/**
 * Sizes such as {@code 256MiB}: kept for the server's and the benchmarks' command-line options; the
 * parser itself is {@link io.flexlog.core.config.DataSize}, shared with the config registries.
 */
public final class DataSize {
  private DataSize() {}

  /**
   * @throws IllegalArgumentException naming {@code key} and the bad value
   */
  public static long parse(String key, String value) {
    return io.flexlog.core.config.DataSize.parse(key, value);
  }

  public static String format(long bytes) {
    return io.flexlog.core.config.DataSize.format(bytes);
  }
}
