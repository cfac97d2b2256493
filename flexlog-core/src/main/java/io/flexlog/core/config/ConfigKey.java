package io.flexlog.core.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One setting: its name, type, default, rule, doc and importance, in one place. Keys are immutable;
 * the fluent methods return copies, so a registry declares each key as one constant:
 *
 * <pre>{@code
 * static final ConfigKey<Duration> READ_HOLD =
 *     ConfigKey.duration("read-hold-ms", Duration.ofMillis(1))
 *         .validator(Validator.positiveDuration())
 *         .doc("How long a replica holds a read it cannot decide yet.");
 * }</pre>
 *
 * A key belongs to one {@link ConfigDef}, which parses raw values for it; {@link #validate} checks
 * a typed value set in code (a builder) with the same rule and words.
 *
 * @param <T> the type of the parsed value
 */
public final class ConfigKey<T> {
  /** How much a user should care: the docs list keys in this order within a section. */
  public enum Importance {
    HIGH,
    MEDIUM,
    LOW
  }

  private final String name;
  private final ConfigType type;
  private final T defaultValue;
  private final String defaultDoc;
  private final Validator<? super T> validator;
  private final String doc;
  private final Importance importance;
  private final List<String> deprecatedAliases;

  private ConfigKey(
      String name,
      ConfigType type,
      T defaultValue,
      String defaultDoc,
      Validator<? super T> validator,
      String doc,
      Importance importance,
      List<String> deprecatedAliases) {
    this.name = Objects.requireNonNull(name);
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultDoc = defaultDoc;
    this.validator = validator;
    this.doc = doc;
    this.importance = importance;
    this.deprecatedAliases = List.copyOf(deprecatedAliases);
  }

  private static <T> ConfigKey<T> of(String name, ConfigType type, T defaultValue) {
    return new ConfigKey<>(
        name, type, defaultValue, null, Validator.any(), "", Importance.MEDIUM, List.of());
  }

  public static ConfigKey<Integer> integer(String name, Integer defaultValue) {
    return of(name, ConfigType.INT, defaultValue);
  }

  public static ConfigKey<Long> longKey(String name, Long defaultValue) {
    return of(name, ConfigType.LONG, defaultValue);
  }

  public static ConfigKey<Double> decimal(String name, Double defaultValue) {
    return of(name, ConfigType.DOUBLE, defaultValue);
  }

  public static ConfigKey<Boolean> bool(String name, Boolean defaultValue) {
    return of(name, ConfigType.BOOLEAN, defaultValue);
  }

  public static ConfigKey<String> string(String name, String defaultValue) {
    return of(name, ConfigType.STRING, defaultValue);
  }

  public static ConfigKey<List<String>> list(String name, List<String> defaultValue) {
    return of(name, ConfigType.LIST, defaultValue);
  }

  /** A key whose value is one of {@code values} (case-insensitive, parsed to lower case). */
  public static ConfigKey<String> oneOf(String name, String defaultValue, List<String> values) {
    return new ConfigKey<>(
        name,
        ConfigType.ENUM,
        defaultValue,
        null,
        Validator.oneOf(values),
        "",
        Importance.MEDIUM,
        List.of());
  }

  /** A duration written as a number of milliseconds. */
  public static ConfigKey<Duration> duration(String name, Duration defaultValue) {
    return of(name, ConfigType.DURATION_MS, defaultValue);
  }

  /** A number of bytes, with an optional unit ({@code 64KiB}). */
  public static ConfigKey<Long> dataSize(String name, Long defaultValue) {
    return of(name, ConfigType.DATA_SIZE, defaultValue);
  }

  /** This key with {@code rule} added to its rules. */
  public ConfigKey<T> validator(Validator<? super T> rule) {
    Validator<? super T> combined =
        validator.describe().isEmpty() ? rule : Validator.<T>both(validator, rule);
    return new ConfigKey<>(
        name, type, defaultValue, defaultDoc, combined, doc, importance, deprecatedAliases);
  }

  public ConfigKey<T> doc(String text) {
    return new ConfigKey<>(
        name, type, defaultValue, defaultDoc, validator, text, importance, deprecatedAliases);
  }

  public ConfigKey<T> importance(Importance level) {
    return new ConfigKey<>(
        name, type, defaultValue, defaultDoc, validator, doc, level, deprecatedAliases);
  }

  /**
   * For a key without a fixed default (null): how its value is chosen when not set, for the docs,
   * e.g. {@code <data-dir>/segments}. Such a key is optional; the code reading it picks the value.
   */
  public ConfigKey<T> defaultDoc(String text) {
    return new ConfigKey<>(
        name, type, defaultValue, text, validator, doc, importance, deprecatedAliases);
  }

  /** This key also read under an old spelling, documented as deprecated. */
  public ConfigKey<T> deprecatedAlias(String alias) {
    List<String> aliases = new ArrayList<>(deprecatedAliases);
    aliases.add(alias);
    return new ConfigKey<>(
        name, type, defaultValue, defaultDoc, validator, doc, importance, aliases);
  }

  /**
   * Checks a typed value against this key's rule, naming this key.
   *
   * @throws ConfigException naming the key, the value and the rule
   */
  public T validate(T value) {
    if (value == null) {
      throw ConfigException.missing(name);
    }
    String broken = validator.check(value);
    if (broken != null) {
      // Shown only on failure: rendering every valid value costs a fresh client's start.
      throw ConfigException.invalid(name, type.show(value), broken);
    }
    return value;
  }

  /** As {@link #validate(Object)}, naming {@code writtenAs} and showing {@code shown}. */
  T validate(String writtenAs, T value, String shown) {
    if (value == null) {
      throw ConfigException.missing(writtenAs);
    }
    String broken = validator.check(value);
    if (broken != null) {
      throw ConfigException.invalid(writtenAs, shown, broken);
    }
    return value;
  }

  /**
   * @throws IllegalArgumentException when {@code raw} is not a value of this key's type
   */
  @SuppressWarnings("unchecked")
  T convert(Object raw) {
    try {
      return (T) type.parse(raw);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  public String name() {
    return name;
  }

  public ConfigType type() {
    return type;
  }

  /**
   * The default, or null when the key is required or its default is computed ({@link #defaultDoc}).
   */
  public T defaultValue() {
    return defaultValue;
  }

  /** True when the key must be given: no default and no computed one. */
  public boolean required() {
    return defaultValue == null && defaultDoc == null;
  }

  /** The default as the docs show it. */
  public String defaultText() {
    if (defaultDoc != null) {
      return defaultDoc;
    }
    return defaultValue == null ? "required" : type.display(defaultValue);
  }

  /** The valid values as the docs show them; empty when any value of the type is valid. */
  public String validValues() {
    return validator.describe();
  }

  public String doc() {
    return doc;
  }

  public Importance importance() {
    return importance;
  }

  public List<String> deprecatedAliases() {
    return deprecatedAliases;
  }

  @Override
  public String toString() {
    return name;
  }
}
