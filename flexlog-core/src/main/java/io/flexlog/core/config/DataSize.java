package io.flexlog.core.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses sizes such as {@code 256MiB}, {@code 1GiB}, {@code 64KiB}, {@code 4096} (bytes). */
public final class DataSize {
  private static final Pattern SIZE =
      Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?");

  private DataSize() {}

  /**
   * @throws IllegalArgumentException naming {@code key} and the bad value
   */
  public static long parse(String key, String value) {
    Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          key + ": '" + value + "' is not a size (examples: 4096, 64KiB, 256MiB, 1GiB)");
    }
    long number = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    int shift =
        switch (unit.charAt(0)) {
          case 'k' -> 10;
          case 'm' -> 20;
          case 'g' -> 30;
          case 't' -> 40;
          default -> 0;
        };
    if (Long.numberOfLeadingZeros(number) <= shift) {
      throw new IllegalArgumentException(key + ": '" + value + "' is too large");
    }
    return number << shift;
  }

  public static String format(long bytes) {
    if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
      return (bytes >> 30) + "GiB";
    }
    if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
      return (bytes >> 20) + "MiB";
    }
    if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
      return (bytes >> 10) + "KiB";
    }
    return bytes + "B";
  }
}
