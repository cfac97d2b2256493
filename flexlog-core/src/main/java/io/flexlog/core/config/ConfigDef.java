package io.flexlog.core.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The registry of one component's settings: every key it reads, once, in one naming style. It
 * parses a component's raw settings (a properties file or a YAML section) into {@link
 * ConfigValues}, rejecting unknown keys, values that do not parse and values that break a rule,
 * always with a {@link ConfigException} naming the key as the user wrote it. It also renders its
 * keys as the Markdown table of {@code docs/configuration.md}.
 *
 * <p>Two styles, one per kind of file:
 *
 * <ul>
 *   <li>{@link #properties}: dotted lower-case words as in Kafka ({@code request.timeout.ms}); an
 *       unparsable value reads {@code request.timeout.ms must be a number of milliseconds, got
 *       soon};
 *   <li>{@link #section}: dashed lower-case words in a section of the YAML cluster file ({@code
 *       atomic-abandon-after-ms} under {@code node:}); an unparsable value reads with its path,
 *       {@code node.read-hold-ms: 'soon' is not a number of milliseconds}, like the file's other
 *       errors.
 * </ul>
 */
public final class ConfigDef {
  private static final Pattern DOTTED = Pattern.compile("[a-z0-9]+(\\.[a-z0-9]+)*");
  private static final Pattern DASHED = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");

  private final String name;
  private final String section;
  private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();
  private final Map<String, ConfigKey<?>> aliases = new HashMap<>();

  private ConfigDef(String name, String section) {
    this.name = name;
    this.section = section;
  }

  /** A registry of properties-style keys; {@code name} names it in errors ("client config"). */
  public static ConfigDef properties(String name) {
    return new ConfigDef(name, null);
  }

  /** A registry of the dashed keys of the YAML section {@code section} ("node"). */
  public static ConfigDef section(String section) {
    return new ConfigDef(section, section);
  }

  /**
   * Adds a key.
   *
   * @throws IllegalStateException when its name breaks this registry's style or is taken
   */
  public <T> ConfigKey<T> define(ConfigKey<T> key) {
    Pattern style = section == null ? DOTTED : DASHED;
    if (!style.matcher(key.name()).matches()) {
      throw new IllegalStateException(key.name() + " breaks the key style of " + name);
    }
    claim(key.name(), key);
    for (String alias : key.deprecatedAliases()) {
      claim(alias, key);
      aliases.put(alias, key);
    }
    keys.put(key.name(), key);
    return key;
  }

  private void claim(String spelling, ConfigKey<?> key) {
    if (keys.containsKey(spelling) || aliases.containsKey(spelling)) {
      throw new IllegalStateException(spelling + " is defined twice in " + name);
    }
  }

  /** The YAML section of these keys, or null for properties. */
  public String sectionName() {
    return section;
  }

  public Collection<ConfigKey<?>> keys() {
    return keys.values();
  }

  /** The key named {@code spelling}, or the key it is a deprecated alias of, or null. */
  public ConfigKey<?> lookup(String spelling) {
    ConfigKey<?> key = keys.get(spelling);
    return key != null ? key : aliases.get(spelling);
  }

  /**
   * Checks that every spelling is a key of this registry or a deprecated alias, without parsing
   * values: for files that are read whole at start-up but whose values are used later.
   *
   * @throws ConfigException naming the first unknown key
   */
  public void checkKnown(Iterable<String> spellings) {
    for (String spelling : spellings) {
      if (lookup(spelling) == null) {
        throw ConfigException.of(spelling, null, unknown(spelling));
      }
    }
  }

  /**
   * Parses raw settings: every key must be known (or a deprecated alias), its value must parse and
   * keep its rule. Keys not given, or given without a value (YAML {@code key:}), keep their
   * defaults in the result.
   *
   * @throws ConfigException naming the first key at fault as written in {@code raw}
   */
  public ConfigValues parse(Map<String, ?> raw) {
    Map<ConfigKey<?>, Object> values = new HashMap<>();
    Map<ConfigKey<?>, String> written = new HashMap<>();
    for (Map.Entry<String, ?> entry : raw.entrySet()) {
      String spelling = entry.getKey();
      checkKnown(List.of(spelling));
      ConfigKey<?> key = lookup(spelling);
      String earlier = written.put(key, spelling);
      if (earlier != null) {
        throw ConfigException.of(
            spelling,
            entry.getValue(),
            spelling + " and " + earlier + " are the same setting (" + key.name() + "); set one");
      }
      if (entry.getValue() != null) {
        values.put(key, parse(key, spelling, entry.getValue()));
      }
    }
    return new ConfigValues(values, written);
  }

  /**
   * Parses one value of {@code key} written as {@code writtenAs} (a key or a command-line flag).
   *
   * @throws ConfigException naming {@code writtenAs}, the value and the rule
   */
  public <T> T parse(ConfigKey<T> key, String writtenAs, Object raw) {
    T value;
    try {
      value = key.convert(raw);
    } catch (IllegalArgumentException e) {
      throw ConfigException.of(writtenAs, raw, unparsable(writtenAs, raw, key.type().noun()));
    }
    return key.validate(writtenAs, value, String.valueOf(raw).trim());
  }

  private String unknown(String spelling) {
    if (section == null) {
      return "unknown " + name + " key '" + spelling + "'";
    }
    return "unknown key '" + spelling + "' in " + section + " (known: " + keys.keySet() + ")";
  }

  private String unparsable(String writtenAs, Object raw, String noun) {
    if (section == null) {
      return writtenAs + " must be " + noun + ", got " + raw;
    }
    String path = writtenAs.startsWith("-") ? writtenAs : section + "." + writtenAs;
    return path + ": '" + raw + "' is not " + noun;
  }

  /**
   * This registry as a Markdown table (key, type, default, valid values, importance, doc), keys by
   * importance and then in the order defined; deprecated aliases are named in the doc column.
   */
  public String toMarkdown() {
    StringBuilder out = new StringBuilder();
    out.append("| Key | Type | Default | Valid values | Importance | Description |\n");
    out.append("|---|---|---|---|---|---|\n");
    List<ConfigKey<?>> ordered = new ArrayList<>(keys.values());
    ordered.sort(Comparator.comparing(ConfigKey::importance));
    for (ConfigKey<?> key : ordered) {
      String doc = key.doc();
      for (String alias : key.deprecatedAliases()) {
        doc += " Deprecated alias: `" + alias + "`.";
      }
      out.append("| `")
          .append(key.name())
          .append("` | ")
          .append(key.type().docName())
          .append(" | ")
          .append(cell(key.defaultText()))
          .append(" | ")
          .append(cell(key.validValues()))
          .append(" | ")
          .append(key.importance().name().toLowerCase(Locale.ROOT))
          .append(" | ")
          .append(escape(doc))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String cell(String text) {
    return text.isEmpty() ? "" : "`" + escape(text) + "`";
  }

  private static String escape(String text) {
    return text.replace("|", "\\|").replace("\n", " ").strip();
  }
}
