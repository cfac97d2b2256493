package io.flexlog.core.config;

import java.util.Map;

/**
 * Settings parsed by a {@link ConfigDef}: each key's typed value, or its default when not given,
 * and the spelling the user wrote it under, for errors that involve several keys.
 */
public final class ConfigValues {
  private final Map<ConfigKey<?>, Object> values;
  private final Map<ConfigKey<?>, String> written;

  ConfigValues(Map<ConfigKey<?>, Object> values, Map<ConfigKey<?>, String> written) {
    this.values = Map.copyOf(values);
    this.written = Map.copyOf(written);
  }

  /** The value given for {@code key}, else its default (null for a computed default). */
  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    return values.containsKey(key) ? (T) values.get(key) : key.defaultValue();
  }

  /** True when the settings gave {@code key} (under its name or an alias). */
  public boolean isSet(ConfigKey<?> key) {
    return values.containsKey(key);
  }

  /** The spelling the user wrote {@code key} under, else its name. */
  public String writtenAs(ConfigKey<?> key) {
    return written.getOrDefault(key, key.name());
  }
}
