package io.flexlog.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDefTest {
  private static final ConfigDef PROPS = ConfigDef.properties("test config");
  private static final ConfigKey<Duration> TIMEOUT =
      PROPS.define(
          ConfigKey.duration("request.timeout.ms", Duration.ofSeconds(2))
              .validator(Validator.positiveDuration())
              .importance(ConfigKey.Importance.HIGH)
              .doc("How long one attempt waits."));
  private static final ConfigKey<Long> WINDOW =
      PROPS.define(
          ConfigKey.dataSize("window.bytes", 1L << 20)
              .validator(Validator.atLeast(1024))
              .deprecatedAlias("window.size")
              .doc("Bytes in flight."));
  private static final ConfigKey<List<String>> SERVERS =
      PROPS.define(
          ConfigKey.list("bootstrap.servers", List.of("127.0.0.1:7070"))
              .validator(Validator.nonEmpty()));
  private static final ConfigKey<Boolean> ENABLED =
      PROPS.define(ConfigKey.bool("feature.enabled", false));
  private static final ConfigKey<String> COLOR =
      PROPS.define(ConfigKey.string("broker.color", "global").validator(Validator.nonEmpty()));

  private static final ConfigDef NODE = ConfigDef.section("node");
  private static final ConfigKey<Integer> PORT =
      NODE.define(ConfigKey.integer("metrics-port", 0).validator(Validator.between(0, 65535)));
  private static final ConfigKey<String> ENGINE =
      NODE.define(ConfigKey.oneOf("engine", "auto", List.of("auto", "llpl", "mapped")));
  private static final ConfigKey<Double> WATERMARK =
      NODE.define(
          ConfigKey.decimal("pm-high-watermark", 0.75)
              .validator(
                  Validator.of(v -> v > 0 && v <= 1, "must be a fraction in (0, 1]", "(0, 1]")));
  private static final ConfigKey<Long> COUNT =
      NODE.define(ConfigKey.longKey("result-count", 10L).validator(Validator.positive()));
  private static final ConfigKey<Duration> HEARTBEAT =
      NODE.define(
          ConfigKey.duration("subscribe-heartbeat-ms", Duration.ofSeconds(1))
              .validator(Validator.atLeast(Duration.ofMillis(4))));
  private static final ConfigKey<Integer> ID = NODE.define(ConfigKey.integer("id", null));
  private static final ConfigKey<String> DIR =
      NODE.define(ConfigKey.string("segment-dir", null).defaultDoc("<data-dir>/segments"));

  @Test
  void shouldParseEveryTypeFromStringsAndYamlValues() {
    ConfigValues props =
        PROPS.parse(
            Map.of(
                "request.timeout.ms", "250",
                "window.bytes", "64KiB",
                "bootstrap.servers", "a:1, b:2,",
                "feature.enabled", "TRUE",
                "broker.color", "left"));
    assertThat(props.get(TIMEOUT)).isEqualTo(Duration.ofMillis(250));
    assertThat(props.get(WINDOW)).isEqualTo(64L << 10);
    assertThat(props.get(SERVERS)).containsExactly("a:1", "b:2");
    assertThat(props.get(ENABLED)).isTrue();
    assertThat(props.get(COLOR)).isEqualTo("left");

    ConfigValues node =
        NODE.parse(
            Map.of(
                "metrics-port", 9100,
                "engine", "LLPL",
                "pm-high-watermark", 1,
                "result-count", 7,
                "subscribe-heartbeat-ms", 250,
                "id", "3"));
    assertThat(node.get(PORT)).isEqualTo(9100);
    assertThat(node.get(ENGINE)).isEqualTo("llpl");
    assertThat(node.get(WATERMARK)).isEqualTo(1.0);
    assertThat(node.get(COUNT)).isEqualTo(7L);
    assertThat(node.get(HEARTBEAT)).isEqualTo(Duration.ofMillis(250));
    assertThat(node.get(ID)).isEqualTo(3);
  }

  @Test
  void shouldKeepDefaultsForKeysNotGivenOrGivenWithoutAValue() {
    Map<String, Object> raw = new LinkedHashMap<>();
    raw.put("metrics-port", null);
    ConfigValues values = NODE.parse(raw);
    assertThat(values.get(PORT)).isZero();
    assertThat(values.isSet(PORT)).isFalse();
    assertThat(values.get(ENGINE)).isEqualTo("auto");
    assertThat(values.get(HEARTBEAT)).isEqualTo(Duration.ofSeconds(1));
    assertThat(values.get(ID)).isNull();
    assertThat(ID.required()).isTrue();
    assertThat(DIR.required()).isFalse();
    assertThat(PROPS.parse(Map.of()).get(SERVERS)).containsExactly("127.0.0.1:7070");
  }

  @Test
  void shouldNameTheKeyTheValueAndTheRuleOfEachValidator() {
    assertRejected(PROPS, "request.timeout.ms", "0", "request.timeout.ms must be > 0, got 0");
    assertRejected(PROPS, "window.bytes", "10", "window.bytes must be at least 1024, got 10");
    assertRejected(PROPS, "bootstrap.servers", " , ", "bootstrap.servers must not be empty, got ,");
    assertRejected(PROPS, "broker.color", " ", "broker.color must not be empty, got ");
    assertRejected(NODE, "metrics-port", 70000, "metrics-port must be in [0, 65535], got 70000");
    assertRejected(NODE, "engine", "pmdk", "engine must be one of auto, llpl, mapped, got pmdk");
    assertRejected(
        NODE, "pm-high-watermark", 1.5, "pm-high-watermark must be a fraction in (0, 1], got 1.5");
    assertRejected(NODE, "result-count", 0, "result-count must be > 0, got 0");
    assertRejected(
        NODE, "subscribe-heartbeat-ms", 1, "subscribe-heartbeat-ms must be at least 4, got 1");
  }

  @Test
  void shouldNameTheKeyOfAValueThatDoesNotParseInTheStyleOfItsFile() {
    assertRejected(
        PROPS,
        "request.timeout.ms",
        "soon",
        "request.timeout.ms must be a number of milliseconds, got soon");
    assertRejected(
        PROPS, "feature.enabled", "yes", "feature.enabled must be true or false, got yes");
    assertRejected(NODE, "result-count", "many", "node.result-count: 'many' is not an integer");
    assertRejected(
        NODE, "metrics-port", 1L << 40, "node.metrics-port: '1099511627776' is not an integer");
    assertRejected(
        NODE, "pm-high-watermark", "lots", "node.pm-high-watermark: 'lots' is not a number");
    assertRejected(NODE, "result-count", 1.5, "node.result-count: '1.5' is not an integer");
    assertThatThrownBy(() -> NODE.parse(WINDOW_LIKE, "--pm-bytes", "lots"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--pm-bytes: 'lots' is not a number of bytes");
  }

  private static final ConfigKey<Long> WINDOW_LIKE = ConfigKey.dataSize("pm-bytes", 1L << 28);

  @Test
  void shouldRejectUnknownKeysNamingThem() {
    assertThatThrownBy(() -> PROPS.parse(Map.of("request.timeout", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("unknown test config key 'request.timeout'");
    assertThatThrownBy(() -> NODE.parse(Map.of("segment-size", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("unknown key 'segment-size' in node (known: [metrics-port, ");
  }

  @Test
  void shouldMapADeprecatedAliasToItsKeyAndNameTheAliasInErrors() {
    ConfigValues values = PROPS.parse(Map.of("window.size", "2048"));
    assertThat(values.get(WINDOW)).isEqualTo(2048);
    assertThat(values.isSet(WINDOW)).isTrue();
    assertThat(values.writtenAs(WINDOW)).isEqualTo("window.size");
    assertThat(PROPS.lookup("window.size")).isSameAs(WINDOW);

    ConfigException e =
        (ConfigException)
            org.assertj.core.api.Assertions.catchThrowable(
                () -> PROPS.parse(Map.of("window.size", "10")));
    assertThat(e).hasMessage("window.size must be at least 1024, got 10");
    assertThat(e.key()).isEqualTo("window.size");
    assertThat(e.value()).isEqualTo("10");

    Map<String, String> both = new LinkedHashMap<>();
    both.put("window.bytes", "2048");
    both.put("window.size", "4096");
    assertThatThrownBy(() -> PROPS.parse(both))
        .hasMessageContaining("are the same setting (window.bytes); set one");
  }

  @Test
  void shouldValidateTypedValuesSetInCodeWithTheSameWords() {
    assertThat(TIMEOUT.validate(Duration.ofMillis(5))).isEqualTo(Duration.ofMillis(5));
    assertThatThrownBy(() -> TIMEOUT.validate(Duration.ZERO))
        .isInstanceOf(ConfigException.class)
        .hasMessage("request.timeout.ms must be > 0, got 0");
    assertThatThrownBy(() -> ID.validate(null)).hasMessage("id is required");
  }

  @Test
  void shouldRefuseKeysOutsideTheRegistryStyleOrDefinedTwice() {
    assertThatThrownBy(() -> PROPS.define(ConfigKey.integer("read-hold-ms", 1)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> NODE.define(ConfigKey.integer("read.hold.ms", 1)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> NODE.define(ConfigKey.integer("metrics-port", 1)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () -> PROPS.define(ConfigKey.integer("other.key", 1).deprecatedAlias("window.size")))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shouldRenderTheKeysAsAMarkdownTableByImportance() {
    String table = PROPS.toMarkdown();
    assertThat(table)
        .startsWith("| Key | Type | Default | Valid values | Importance | Description |\n")
        .contains(
            "| `request.timeout.ms` | duration (ms) | `2000` | `> 0` | high | How long one"
                + " attempt waits. |")
        .contains(
            "| `window.bytes` | data size | `1MiB` | `>= 1024` | medium | Bytes in flight."
                + " Deprecated alias: `window.size`. |");
    assertThat(table.indexOf("request.timeout.ms")).isLessThan(table.indexOf("window.bytes"));
    assertThat(NODE.toMarkdown())
        .contains("| `segment-dir` | string | `<data-dir>/segments` |")
        .contains("| `id` | int | `required` |")
        .contains("| `pm-high-watermark` | double | `0.75` | `(0, 1]` |");
  }

  private static void assertRejected(ConfigDef def, String key, Object value, String message) {
    assertThatThrownBy(() -> def.parse(Map.of(key, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessage(message)
        .extracting(e -> ((ConfigException) e).key())
        .isEqualTo(key);
  }

  @Test
  void shouldValidateTypedValuesNamingKeyValueAndRuleOnlyWhenBroken() {
    assertThat(TIMEOUT.validate(Duration.ofMillis(5))).isEqualTo(Duration.ofMillis(5));
    assertThat(SERVERS.validate(List.of("a:1", "b:2"))).containsExactly("a:1", "b:2");
    assertThatThrownBy(() -> TIMEOUT.validate(Duration.ZERO))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("request.timeout.ms ")
        .hasMessageEndingWith(", got 0")
        .extracting(e -> ((ConfigException) e).value())
        .isEqualTo("0");
    assertThatThrownBy(() -> SERVERS.validate(List.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("bootstrap.servers ")
        .hasMessageEndingWith(", got ");
    assertThatThrownBy(() -> WINDOW.validate(null))
        .isInstanceOf(ConfigException.class)
        .hasMessage("window.bytes is required");
  }
}
