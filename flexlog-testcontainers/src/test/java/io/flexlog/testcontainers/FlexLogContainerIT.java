package io.flexlog.testcontainers;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.command.InspectContainerResponse;
import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The image runs {@code flexlog dev}, served to a client on the host. */
@DockerTest
class FlexLogContainerIT {
  @RegisterExtension final LogsOnFailure logs = new LogsOnFailure();

  @Test
  void shouldServeAppendsReadsAndSubscriptionsFromTheHost() throws Exception {
    try (FlexLogContainer flexlog = new FlexLogContainer(DockerAvailable.image())) {
      logs.watch("flexlog dev", flexlog::getLogs);
      long started = System.nanoTime();
      flexlog.start();
      System.out.printf(
          "flexlog dev ready %d ms after the container was created%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

      try (FlexLog log = FlexLog.connect(flexlog.getBootstrapServers())) {
        List<Long> sns = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          sns.add(log.append("global", ("record " + i).getBytes(UTF_8)));
        }
        assertThat(sns).isSorted().doesNotHaveDuplicates();
        for (int i = 0; i < sns.size(); i++) {
          LogRecord record = log.read("global", sns.get(i)).orElseThrow();
          assertThat(new String(record.payload(), UTF_8)).isEqualTo("record " + i);
        }
        try (RecordStream stream = log.subscribe("global", 0)) {
          for (int i = 0; i < sns.size(); i++) {
            LogRecord record = stream.poll(Duration.ofSeconds(10));
            assertThat(record).as("subscription record %d", i).isNotNull();
            assertThat(record.sn()).isEqualTo(sns.get(i));
            assertThat(new String(record.payload(), UTF_8)).isEqualTo("record " + i);
          }
          long live = log.append("global", "live".getBytes(UTF_8));
          LogRecord record = stream.poll(Duration.ofSeconds(10));
          assertThat(record).isNotNull();
          assertThat(record.sn()).isEqualTo(live);
        }
      }
      // The llpl engine runs (libpmemobj is in the image) and the process is not root.
      assertThat(flexlog.getLogs()).contains("engine=llpl").doesNotContain("instead of 'llpl'");
      assertThat(flexlog.execInContainer("id", "-un").getStdout().trim()).isEqualTo("flexlog");
      InspectContainerResponse info = flexlog.getContainerInfo();
      Map<String, String> labels = info.getConfig().getLabels();
      assertThat(labels)
          .containsEntry(
              "org.opencontainers.image.version",
              DockerAvailable.image().substring(DockerAvailable.image().indexOf(':') + 1));
      assertThat(awaitHealth(flexlog, Duration.ofSeconds(30))).isEqualTo("healthy");
    }
  }

  @Test
  void shouldRunTheSequencerTreeLayout() {
    try (FlexLogContainer flexlog =
        new FlexLogContainer(DockerAvailable.image()).withTreeLayout()) {
      logs.watch("flexlog dev --tree", flexlog::getLogs);
      flexlog.start();

      assertThat(flexlog.getLogs()).contains("layout=tree colors=[global, left, right]");
      try (FlexLog log = FlexLog.connect(flexlog.getBootstrapServers())) {
        long left = log.append("left", "to the left".getBytes(UTF_8));
        long root = log.append("global", "to the root".getBytes(UTF_8));
        assertThat(log.read("left", left).orElseThrow().payload())
            .asString(UTF_8)
            .isEqualTo("to the left");
        assertThat(log.read("global", root).orElseThrow().payload())
            .asString(UTF_8)
            .isEqualTo("to the root");
      }
    }
  }

  /** The container's health once it is no longer "starting", or the last status seen. */
  static String awaitHealth(FlexLogContainer container, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String status = "";
    while (System.nanoTime() < deadline) {
      status = container.getCurrentContainerInfo().getState().getHealth().getStatus();
      if (!"starting".equals(status)) {
        return status;
      }
      Thread.sleep(250);
    }
    return status;
  }
}
