package io.flexlog.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigKey;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ClientConfigDefTest {
  @Test
  void shouldDeclareEveryClientKeyOnceWithTheDefaultsTheBuilderUses() {
    assertThat(ClientConfigDef.DEF.keys())
        .extracting(ConfigKey::name)
        .containsExactly(
            "bootstrap.servers",
            "request.timeout.ms",
            "delivery.timeout.ms",
            "read.timeout.ms",
            "connect.timeout.ms",
            "subscribe.window.bytes",
            "subscribe.liveness.timeout.ms",
            "atomic.broker.color");
    FlexLogConfig defaults = FlexLogConfig.fromProperties(new Properties());
    assertThat(defaults.bootstrapServers()).containsExactly("127.0.0.1:7070");
    assertThat(defaults.requestTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(defaults.deliveryTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.readTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.subscribeWindowBytes()).isEqualTo(1 << 20);
    assertThat(defaults.subscribeLivenessTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(defaults.atomicBrokerColor()).isEqualTo("global");
  }

  @Test
  void shouldReadEveryKeyAndSizesWithUnits() {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", "Node-A:7070");
    p.setProperty("read.timeout.ms", "700");
    p.setProperty("connect.timeout.ms", "800");
    p.setProperty("subscribe.window.bytes", "64KiB");
    p.setProperty("atomic.broker.color", " left ");
    FlexLogConfig config = FlexLogConfig.fromProperties(p);
    assertThat(config.bootstrapServers()).containsExactly("node-a:7070");
    assertThat(config.readTimeout()).isEqualTo(Duration.ofMillis(700));
    assertThat(config.connectTimeout()).isEqualTo(Duration.ofMillis(800));
    assertThat(config.subscribeWindowBytes()).isEqualTo(64 << 10);
    assertThat(config.atomicBrokerColor()).isEqualTo("left");
  }

  @Test
  void shouldNameTheKeyTheValueAndTheRule() {
    Properties p = new Properties();
    p.setProperty("atomic.broker.color", "no spaces allowed");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("atomic.broker.color must be a color name (illegal color name")
        .hasMessageEndingWith(", got no spaces allowed");
    p.clear();
    p.setProperty("request.timeout.ms", "5000");
    p.setProperty("delivery.timeout.ms", "1000");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .isInstanceOf(ConfigException.class)
        .hasMessage("delivery.timeout.ms must be at least request.timeout.ms (5000), got 1000");
    assertThatThrownBy(() -> FlexLogConfig.builder().bootstrapServers(" , ").build())
        .hasMessage("bootstrap.servers must not be empty, got ");
    p.clear();
    p.setProperty("bootstrap.servers", "127.0.0.1:7070,localhost");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .isInstanceOf(ConfigException.class)
        .hasMessage("bootstrap.servers: 'localhost' is not host:port");
  }
}
