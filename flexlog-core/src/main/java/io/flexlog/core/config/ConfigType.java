package io.flexlog.core.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The types a setting can have, each with the words an error uses for it and its parser. Parsers
 * accept the value as a properties file gives it (a string) or as YAML gives it (a number, a
 * boolean, a list or a string).
 */
public enum ConfigType {
  INT("int", "an integer"),
  LONG("long", "an integer"),
  DOUBLE("double", "a number"),
  BOOLEAN("boolean", "true or false"),
  STRING("string", "a string"),
  /** Comma-separated in a properties file, a list or a comma-separated string in YAML. */
  LIST("list", "a comma-separated list"),
  /** One of a key's named values, case-insensitive; parsed to lower case. */
  ENUM("enum", "one of the listed values"),
  /** A whole number of milliseconds (keys end in {@code ms}). */
  DURATION_MS("duration (ms)", "a number of milliseconds"),
  /** A number of bytes, with an optional unit: {@code 4096}, {@code 64KiB}, {@code 256MiB}. */
  DATA_SIZE("data size", "a number of bytes (examples: 4096, 64KiB, 256MiB, 1GiB)");

  private final String docName;
  private final String noun;

  ConfigType(String docName, String noun) {
    this.docName = docName;
    this.noun = noun;
  }

  /** The type's name in the generated docs. */
  public String docName() {
    return docName;
  }

  /** What a value must be, for errors: "must be a number of milliseconds". */
  public String noun() {
    return noun;
  }

  /**
   * @throws IllegalArgumentException when {@code raw} is not a value of this type
   */
  Object parse(Object raw) {
    return switch (this) {
      case INT -> Math.toIntExact(integral(raw));
      case LONG -> integral(raw);
      case DOUBLE -> raw instanceof Number n ? n.doubleValue() : Double.parseDouble(text(raw));
      case BOOLEAN -> bool(raw);
      case STRING -> String.valueOf(raw);
      case LIST -> list(raw);
      case ENUM -> text(raw).toLowerCase(Locale.ROOT);
      case DURATION_MS -> Duration.ofMillis(integral(raw));
      case DATA_SIZE -> raw instanceof Number ? integral(raw) : DataSize.parse("", text(raw));
    };
  }

  /** A typed value as an error shows it: durations in milliseconds, lists comma-separated. */
  String show(Object value) {
    if (value instanceof Duration d) {
      return String.valueOf(d.toMillis());
    }
    if (value instanceof List<?> l) {
      return String.join(",", l.stream().map(String::valueOf).toList());
    }
    return String.valueOf(value);
  }

  /** A typed value as the generated docs show it: sizes with units. */
  String display(Object value) {
    if (this == DATA_SIZE && value instanceof Long bytes) {
      return DataSize.format(bytes);
    }
    return show(value);
  }

  private static String text(Object raw) {
    return String.valueOf(raw).trim();
  }

  private static long integral(Object raw) {
    if (raw instanceof Integer || raw instanceof Long) {
      return ((Number) raw).longValue();
    }
    if (raw instanceof Number) {
      throw new IllegalArgumentException("not an integer: " + raw);
    }
    return Long.parseLong(text(raw));
  }

  private static boolean bool(Object raw) {
    if (raw instanceof Boolean b) {
      return b;
    }
    String s = text(raw).toLowerCase(Locale.ROOT);
    if (!s.equals("true") && !s.equals("false")) {
      throw new IllegalArgumentException("not a boolean: " + raw);
    }
    return s.equals("true");
  }

  private static List<String> list(Object raw) {
    List<String> items = new ArrayList<>();
    List<?> parts = raw instanceof List<?> l ? l : List.of(String.valueOf(raw).split(","));
    for (Object part : parts) {
      String item = String.valueOf(part).trim();
      if (!item.isEmpty()) {
        items.add(item);
      }
    }
    return List.copyOf(items);
  }
}
