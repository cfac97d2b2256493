package io.flexlog.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.config.ConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerConfigTest {
  @Test
  void shouldReadConsumerAndClientKeysTogether() {
    ConsumerConfig config =
        ConsumerConfig.fromMap(
            Map.of(
                "bootstrap.servers", "127.0.0.1:7170",
                "group.id", "billing",
                "auto.offset.reset", "earliest",
                "max.poll.records", "10",
                "session.timeout.ms", "6000",
                "heartbeat.interval.ms", "2000",
                "fetch.max.bytes", "4MiB",
                "value.deserializer", Deserializers.StringDeserializer.class.getName()));
    assertThat(config.client().bootstrapServers()).containsExactly("127.0.0.1:7170");
    assertThat(config.groupColor()).isEqualTo("flexlog.group.billing");
    assertThat(config.maxPollRecords()).isEqualTo(10);
    assertThat(config.sessionTimeout()).isEqualTo(Duration.ofSeconds(6));
    assertThat(config.client().subscribeWindowBytes()).isEqualTo(4L << 20);
    assertThat(config.valueDeserializer()).isInstanceOf(Deserializers.StringDeserializer.class);
  }

  @Test
  void shouldRejectAnUnknownKeyNamingIt() {
    assertThatThrownBy(() -> ConsumerConfig.fromMap(Map.of("max.poll.record", "5")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'max.poll.record'");
  }

  @Test
  void shouldRejectBadValuesNamingTheKey() {
    assertThatThrownBy(() -> ConsumerConfig.fromMap(Map.of("auto.offset.reset", "smallest")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("auto.offset.reset");
    assertThatThrownBy(() -> ConsumerConfig.fromMap(Map.of("group.id", "no spaces")))
        .hasMessageContaining("group.id");
    assertThatThrownBy(
            () ->
                ConsumerConfig.fromMap(
                    Map.of("session.timeout.ms", "1000", "heartbeat.interval.ms", "1000")))
        .hasMessageContaining("heartbeat.interval.ms");
    assertThatThrownBy(
            () ->
                ConsumerConfig.fromMap(Map.of("value.deserializer", "com.example.Missing"))
                    .valueDeserializer())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("value.deserializer")
        .hasMessageContaining("com.example.Missing");
    assertThatThrownBy(() -> ConsumerConfig.fromMap(Map.of("fetch.max.bytes", "10")))
        .hasMessageContaining("fetch.max.bytes");
  }
}
