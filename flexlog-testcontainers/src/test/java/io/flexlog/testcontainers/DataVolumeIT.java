package io.flexlog.testcontainers;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.DockerClientFactory;

/** Records and colors live in the image's data volume: they survive restarts of the container. */
@DockerTest
class DataVolumeIT {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  @RegisterExtension final LogsOnFailure logs = new LogsOnFailure();
  private final String volume = "flexlog-it-" + UUID.randomUUID();

  @AfterEach
  void removeVolume() {
    DockerClientFactory.instance().client().removeVolumeCmd(volume).exec();
  }

  @Test
  void shouldKeepEveryRecordAcrossDockerRestartAndInANewContainerOnTheVolume() throws Exception {
    Map<Long, String> acked = new LinkedHashMap<>();
    long sizeBeforeRestart;
    try (FlexLogContainer flexlog =
        new FlexLogContainer(DockerAvailable.image()).withDataVolume(volume)) {
      logs.watch("first container", flexlog::getLogs);
      flexlog.start();
      appendSome(flexlog.getBootstrapServers(), "before restart", acked);
      sizeBeforeRestart = acked.size();

      // docker restart: SIGTERM, then the same container starts again on its volume.
      DockerClientFactory.instance()
          .client()
          .restartContainerCmd(flexlog.getContainerId())
          .withTimeout(20)
          .exec();
      awaitReadyLines(flexlog, 2);
      assertThat(flexlog.getLogs()).contains("recovered " + sizeBeforeRestart + " committed");
      readAll(flexlog.getBootstrapServers(), acked);
      appendSome(flexlog.getBootstrapServers(), "after restart", acked);
    }

    // A new container on the same volume (the first one is removed) finds every record.
    try (FlexLogContainer second =
        new FlexLogContainer(DockerAvailable.image()).withDataVolume(volume)) {
      logs.watch("second container", second::getLogs);
      second.start();
      assertThat(second.getLogs()).contains("recovered " + acked.size() + " committed");
      readAll(second.getBootstrapServers(), acked);
    }
  }

  private static void appendSome(String bootstrap, String prefix, Map<Long, String> acked) {
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      for (int i = 0; i < 25; i++) {
        String value = prefix + " " + i;
        acked.put(log.append("global", value.getBytes(UTF_8)), value);
      }
    }
  }

  private static void readAll(String bootstrap, Map<Long, String> acked) {
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      acked.forEach(
          (sn, value) ->
              assertThat(log.read("global", sn))
                  .as("record at SN %d", sn)
                  .hasValueSatisfying(
                      r -> assertThat(new String(r.payload(), UTF_8)).isEqualTo(value)));
    }
  }

  private static void awaitReadyLines(FlexLogContainer container, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (occurrences(container.getLogs(), FlexLogContainer.READY_LINE) >= count) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "no ready line number " + count + " within " + READY_TIMEOUT + " after docker restart");
  }

  static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
      count++;
    }
    return count;
  }
}
