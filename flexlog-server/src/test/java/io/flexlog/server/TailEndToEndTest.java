package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.ColorTail;
import io.flexlog.client.FlexLog;
import io.flexlog.core.error.SnBeyondTailException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Sn;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FlexLog.tail and reads above the tail (docs/architecture.md#head-and-tail). */
class TailEndToEndTest {
  @TempDir Path data;
  private DevCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                FreePorts.consecutive(4),
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                16L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void shouldReportHeadAndTailAndMoveThemWithAppendsAndTrims() {
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      ColorTail empty = log.tail("global");
      assertThat(empty.head()).isEqualTo(1);
      assertThat(Sn.counter(empty.tail())).isZero();

      long first = log.append("global", new byte[] {1});
      log.append("global", new byte[] {2});
      long last = log.append("global", new byte[] {3});
      assertThat(log.tail("global")).isEqualTo(new ColorTail("global", 1, last));

      log.trim("global", first);
      assertThat(log.tail("global")).isEqualTo(new ColorTail("global", first + 1, last));
    }
  }

  @Test
  void shouldAnswerAReadAboveTheTailAtOnceWithTheTailAndStillReadTheTail() {
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      long last = log.append("global", new byte[] {7});
      long start = System.nanoTime();
      assertThatThrownBy(() -> log.read("global", last + 1))
          .isInstanceOfSatisfying(
              SnBeyondTailException.class,
              e -> {
                assertThat(e.sn()).isEqualTo(last + 1);
                assertThat(e.tail()).isEqualTo(last);
              })
          .hasMessageContaining("beyond its tail " + last);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(log.read("global", last)).isPresent();
      assertThatThrownBy(() -> log.read("global", Sn.of(Sn.epoch(last) + 5, 1)))
          .isInstanceOf(SnBeyondTailException.class);
    }
  }

  @Test
  void shouldNeverCallAnSnBeyondTheTailOnceItsAppendCompleted() throws Exception {
    try (FlexLog writer = FlexLog.connect(cluster.bootstrap());
        FlexLog reader = FlexLog.connect(cluster.bootstrap())) {
      long previous = writer.append("global", new byte[] {0});
      for (int i = 0; i < 50; i++) {
        long next = previous + 1; // SNs of one epoch are consecutive per color
        CompletableFuture<Optional<io.flexlog.client.LogRecord>> racing =
            reader.readAsync("global", next);
        long appended = writer.append("global", new byte[] {(byte) i});
        assertThat(appended).isEqualTo(next);
        try {
          assertThat(racing.join()).isPresent();
        } catch (java.util.concurrent.CompletionException e) {
          assertThat(e.getCause()).isInstanceOf(SnBeyondTailException.class);
        }
        // Invoked after the append completed: must see it.
        assertThat(reader.read("global", appended)).isPresent();
        previous = appended;
      }
    }
  }

  @Test
  void shouldRefuseAnUnknownColor() {
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      assertThatThrownBy(() -> log.tail("nope")).isInstanceOf(UnknownColorException.class);
    }
  }
}
