package io.flexlog.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.testcontainers.utility.DockerImageName;

/** What {@link FlexLogContainer} configures, checked without Docker. */
class FlexLogContainerTest {
  @Test
  void shouldRunTheFlatDevClusterOnAFreeBlockOfHostPorts() {
    try (FlexLogContainer container = new FlexLogContainer("flexlog:1.2.3")) {
      container.configure();

      int port = container.getBootstrapPort();
      assertThat(port).isBetween(HostPorts.LOWEST, HostPorts.HIGHEST - 5);
      assertThat(container.getNetworkMode()).isEqualTo("host");
      assertThat(container.getBootstrapServers()).isEqualTo("127.0.0.1:" + port);
      assertThat(container.getAdminAddress()).isEqualTo("127.0.0.1:" + (port + 4));
      assertThat(container.getCommandParts())
          .containsExactly(
              "dev",
              "--port",
              Integer.toString(port),
              "--admin-port",
              Integer.toString(port + 4),
              "--data",
              "/var/lib/flexlog/dev",
              "--pm-bytes",
              "32MiB",
              "--cache-bytes",
              "8MiB");
    }
  }

  @Test
  void shouldRunTheSequencerTreeWithItsNinePortsThenTheAdminPort() {
    try (FlexLogContainer container = new FlexLogContainer("flexlog:1.2.3").withTreeLayout()) {
      container.configure();

      int port = container.getBootstrapPort();
      assertThat(container.getLayout().colors()).containsExactly("global", "left", "right");
      assertThat(container.getAdminAddress()).isEqualTo("127.0.0.1:" + (port + 9));
      assertThat(List.of(container.getCommandParts())).endsWith("--tree");
    }
  }

  @Test
  void shouldKeepItsPortsWhenConfiguredAgain() {
    try (FlexLogContainer container = new FlexLogContainer("flexlog:1.2.3")) {
      container.configure();
      int port = container.getBootstrapPort();
      container.configure();
      assertThat(container.getBootstrapPort()).isEqualTo(port);
    }
  }

  @Test
  void shouldRefuseAnImageThatIsNotAFlexLogImage() {
    assertThatThrownBy(() -> new FlexLogContainer("apache/kafka:4.0.0"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("apache/kafka:4.0.0")
        .hasMessageContaining("flexlog");
  }

  @Test
  void shouldAcceptACompatibleSubstituteImage() {
    // Construction only: resolving the image name would pull it.
    assertThatCode(
            () ->
                new FlexLogContainer(
                        DockerImageName.parse("mirror.example/flexlog:1.2.3")
                            .asCompatibleSubstituteFor("flexlog"))
                    .close())
        .doesNotThrowAnyException();
  }

  @Test
  void shouldRefuseAddressesBeforeItWasStarted() {
    try (FlexLogContainer container = new FlexLogContainer("flexlog:1.2.3")) {
      assertThatThrownBy(container::getBootstrapServers)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("the FlexLog container has not been started");
      assertThatThrownBy(container::getAdminAddress).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void shouldRefuseANetworkModeOtherThanHost() {
    try (FlexLogContainer container =
        new FlexLogContainer("flexlog:1.2.3").withNetworkMode("bridge")) {
      assertThatThrownBy(container::configure)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("needs host networking")
          .hasMessageContaining("bridge");
    }
  }

  @Test
  void shouldRefuseABadVolumeNameOrLayout() {
    try (FlexLogContainer container = new FlexLogContainer("flexlog:1.2.3")) {
      assertThatThrownBy(() -> container.withDataVolume("/var/data"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a Docker volume name")
          .hasMessageContaining("/var/data");
      assertThatThrownBy(() -> container.withDataVolume(null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> container.withLayout(null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("layout must not be null");
      assertThat(container.withDataVolume("flexlog-data_1.x")).isSameAs(container);
    }
  }
}
