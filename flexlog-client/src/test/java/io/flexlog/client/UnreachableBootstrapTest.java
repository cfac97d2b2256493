package io.flexlog.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.UnreachableException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** With no node listening, the client says so at once instead of blaming a timeout. */
class UnreachableBootstrapTest {
  @Test
  void shouldReportARefusedBootstrapServerAsUnreachableBeforeTheConnectTimeout() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    FlexLogConfig config =
        FlexLogConfig.builder()
            .bootstrapServers("127.0.0.1:" + port)
            .connectTimeout(Duration.ofSeconds(30))
            .build();
    long start = System.nanoTime();
    assertThatThrownBy(
            () -> {
              try (FlexLog log = FlexLog.connect(config)) {
                log.append("global", new byte[] {1});
              }
            })
        .isInstanceOf(UnreachableException.class)
        .hasMessageContaining("no bootstrap server reachable")
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageNotContaining("within");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }
}
