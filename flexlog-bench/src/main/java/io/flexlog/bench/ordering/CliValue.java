package io.flexlog.bench.ordering;

import java.util.Locale;

/**
 * An option value with a lower-case command-line spelling, also used in reports: the enum
 * constant's name in lower case, with '-' for '_' ({@code IN_PROCESS} is {@code in-process}).
 */
public interface CliValue {
  /** The enum constant's name, as {@link Enum#name()}. */
  String name();

  /** The value as written on the command line and in reports. */
  default String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
