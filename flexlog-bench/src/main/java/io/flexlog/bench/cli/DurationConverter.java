package io.flexlog.bench.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations written as a whole number and a unit: {@code 500ms}, {@code 10s}, {@code 2m}.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORMAT = Pattern.compile("(\\d{1,18})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * @throws TypeConversionException with a message that shows the accepted format
   */
  public static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is not a duration: use a whole number and a unit (ms, s, m or h),"
              + " for example 500ms, 10s or 2m");
    }
    long amount = Long.parseLong(m.group(1));
    try {
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is too long a duration");
    }
  }
}
