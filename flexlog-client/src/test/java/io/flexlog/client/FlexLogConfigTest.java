package io.flexlog.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class FlexLogConfigTest {
  @Test
  void shouldReadKafkaStyleProperties() {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", "127.0.0.1:7070, 127.0.0.1:7071");
    p.setProperty("request.timeout.ms", "250");
    p.setProperty("delivery.timeout.ms", "1000");
    FlexLogConfig config = FlexLogConfig.fromProperties(p);
    assertThat(config.bootstrapServers()).containsExactly("127.0.0.1:7070", "127.0.0.1:7071");
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.deliveryTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.readTimeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void shouldNameTheKeyOfABadValue() {
    Properties p = new Properties();
    p.setProperty("request.timeout.ms", "soon");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request.timeout.ms");
  }

  @Test
  void shouldRejectUnknownKeysSoTyposDoNotPassSilently() {
    Properties p = new Properties();
    p.setProperty("bootstrap.server", "127.0.0.1:7070");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .hasMessageContaining("unknown client config key 'bootstrap.server'");
  }

  @Test
  void shouldRejectMalformedBootstrapAddresses() {
    assertThatThrownBy(() -> FlexLogConfig.builder().bootstrapServers("localhost").build())
        .hasMessageContaining("not host:port");
    assertThatThrownBy(() -> FlexLogConfig.builder().bootstrapServers("h:99999").build())
        .hasMessageContaining("invalid port");
  }

  @Test
  void shouldReadTheSubscriptionLivenessTimeoutAndRejectAZeroOne() {
    assertThat(FlexLogConfig.builder().build().subscribeLivenessTimeout())
        .isEqualTo(Duration.ofSeconds(3));
    Properties p = new Properties();
    p.setProperty("subscribe.liveness.timeout.ms", "750");
    assertThat(FlexLogConfig.fromProperties(p).subscribeLivenessTimeout())
        .isEqualTo(Duration.ofMillis(750));

    p.setProperty("subscribe.liveness.timeout.ms", "0");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subscribe.liveness.timeout.ms");
  }

  @Test
  void shouldReadTheSubscriptionWindowAndRejectATinyOne() {
    Properties p = new Properties();
    p.setProperty("subscribe.window.bytes", "65536");
    assertThat(FlexLogConfig.fromProperties(p).subscribeWindowBytes()).isEqualTo(65536);
    assertThat(FlexLogConfig.builder().build().subscribeWindowBytes()).isEqualTo(1 << 20);

    p.setProperty("subscribe.window.bytes", "10");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subscribe.window.bytes must be at least 1024");
    p.setProperty("subscribe.window.bytes", "lots");
    assertThatThrownBy(() -> FlexLogConfig.fromProperties(p))
        .hasMessageContaining("subscribe.window.bytes must be a number of bytes");
  }

  @Test
  void shouldRejectADeliveryTimeoutShorterThanOneAttempt() {
    assertThatThrownBy(
            () ->
                FlexLogConfig.builder()
                    .requestTimeout(Duration.ofSeconds(5))
                    .deliveryTimeout(Duration.ofSeconds(1))
                    .build())
        .hasMessageContaining("delivery.timeout.ms");
  }

  @Test
  void shouldFailToConnectAtOnceNamingTheRefusedServers() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    FlexLogConfig config =
        FlexLogConfig.builder()
            .bootstrapServers("127.0.0.1:" + port)
            .connectTimeout(Duration.ofMillis(500))
            .build();
    assertThatThrownBy(() -> FlexLog.connect(config))
        .isInstanceOf(io.flexlog.core.error.UnreachableException.class)
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageContaining("Connection refused");
  }
}
