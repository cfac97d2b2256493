package io.flexlog.testcontainers.example;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.testcontainers.FlexLogContainer;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

@Testcontainers(disabledWithoutDocker = true)
class OrdersLogIT {
  @Container static final FlexLogContainer flexlog = new FlexLogContainer("flexlog:0.1.0-SNAPSHOT");

  @Test
  void appendedOrdersCanBeReadBack() {
    try (FlexLog log = FlexLog.connect(flexlog.getBootstrapServers())) {
      long sn = log.append("global", "order #1 paid".getBytes(UTF_8));
      assertThat(log.read("global", sn))
          .hasValueSatisfying(
              r -> assertThat(r.payload()).asString(UTF_8).isEqualTo("order #1 paid"));
    }
  }
}
