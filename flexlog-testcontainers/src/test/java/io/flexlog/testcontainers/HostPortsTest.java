package io.flexlog.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class HostPortsTest {
  @Test
  void shouldFindConsecutivePortsThatCanAllBeBound() throws Exception {
    int first = HostPorts.freeBlock("127.0.0.1", 10);

    assertThat(first).isBetween(HostPorts.LOWEST, HostPorts.HIGHEST - 10);
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    for (int port = first; port < first + 10; port++) {
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress(loopback, port));
        assertThat(socket.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void shouldRefuseABlockSizeOutOfRange() {
    assertThatThrownBy(() -> HostPorts.freeBlock("127.0.0.1", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("count must be in 1..1000, got 0");
    assertThatThrownBy(() -> HostPorts.freeBlock("127.0.0.1", 1001))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldRefuseAnUnknownHost() {
    assertThatThrownBy(() -> HostPorts.freeBlock("no-such-host.invalid", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-host.invalid");
  }
}
