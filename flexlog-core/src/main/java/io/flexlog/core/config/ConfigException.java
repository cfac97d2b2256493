package io.flexlog.core.config;

/**
 * A setting that cannot be used: an unknown key, a value that does not parse, or one that breaks
 * its key's rule. The message names the key as the user wrote it (a deprecated alias stays the
 * alias, a cluster-file key keeps its dashes), the value and the rule, so that the user can find
 * and fix the line at fault. An {@link IllegalArgumentException}, as every configuration error of
 * FlexLog was before the registries.
 */
public final class ConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final String value;

  private ConfigException(String key, Object value, String message) {
    super(message);
    this.key = key;
    this.value = value == null ? null : String.valueOf(value);
  }

  /** {@code key rule, got value}, e.g. {@code read-hold-ms must be > 0, got 0}. */
  public static ConfigException invalid(String key, Object value, String rule) {
    return new ConfigException(key, value, key + " " + rule + ", got " + value);
  }

  /** A required key without a value: {@code key is required}. */
  public static ConfigException missing(String key) {
    return new ConfigException(key, null, key + " is required");
  }

  /** A message of the caller's own wording (it must name {@code key}). */
  public static ConfigException of(String key, Object value, String message) {
    return new ConfigException(key, value, message);
  }

  /** The key as the user wrote it. */
  public String key() {
    return key;
  }

  /** The value as the user wrote it, null when the key was missing or unknown. */
  public String value() {
    return value;
  }
}
