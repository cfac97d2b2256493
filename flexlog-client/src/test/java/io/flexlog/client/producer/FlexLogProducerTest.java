package io.flexlog.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.config.ConfigException;
import io.flexlog.core.error.FlexLogTimeoutException;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The producer's checks that need no cluster: configuration and an unreachable cluster. */
class FlexLogProducerTest {

  private static Properties props(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.put(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Test
  void shouldRefuseAcksOtherThanAllAndSayWhy() {
    assertThatThrownBy(
            () ->
                new FlexLogProducer<>(
                    props("acks", "1"), new Serializers.String(), new Serializers.String()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("acks")
        .hasMessageContaining("every replica of its shard");
  }

  @Test
  void shouldRefuseDisablingIdempotenceAndSayWhy() {
    assertThatThrownBy(
            () ->
                new FlexLogProducer<>(
                    props("enable.idempotence", "false"),
                    new Serializers.String(),
                    new Serializers.String()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("enable.idempotence")
        .hasMessageContaining("always idempotent");
  }

  @Test
  void shouldRefuseAnUnknownPropertyByName() {
    assertThatThrownBy(
            () ->
                new FlexLogProducer<>(
                    props("linger.msec", "5"), new Serializers.String(), new Serializers.String()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("linger.msec");
  }

  @Test
  void shouldNeedASerializerWhenNoneIsGiven() {
    assertThatThrownBy(() -> new FlexLogProducer<String, String>(props()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("key.serializer is required");
  }

  @Test
  void shouldInstantiateSerializersByClassName() {
    Properties p =
        props(
            "bootstrap.servers", "127.0.0.1:1",
            "key.serializer", Serializers.String.class.getName(),
            "value.serializer", Serializers.Long.class.getName());
    new FlexLogProducer<String, Long>(p).close(Duration.ZERO);
  }

  @Test
  void shouldFailASendToAnUnreachableClusterWithinMaxBlockMs() throws IOException {
    Properties p = props("bootstrap.servers", "127.0.0.1:" + unusedPort(), "max.block.ms", "500");
    try (FlexLogProducer<String, String> producer =
        new FlexLogProducer<>(p, new Serializers.String(), new Serializers.String())) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("global", "v")))
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("no FlexLog node at bootstrap.servers=127.0.0.1:")
          .hasMessageContaining("max.block.ms=500")
          .hasMessageContaining("the record was not sent");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
    }
  }
}
