package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.bench.consume.SmallDevCluster;
import io.flexlog.server.dev.DevCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench produce} against a real embedded cluster, which stops in the middle of a run. */
class ProduceRunTest {
  @TempDir Path dir;

  @Test
  void shouldEndWithTheErrorSoonAfterTheClusterStopsNotAfterTheDeliveryTimeout() throws Exception {
    DevCluster cluster = SmallDevCluster.start(dir);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    ProduceSettings settings =
        new ProduceSettings(
            cluster.bootstrap(),
            "global",
            Long.MAX_VALUE / 2,
            0,
            100,
            20_000,
            // the delivery timeout is the default's 120 s; sends block at most 1 s
            Map.of("max.block.ms", "1000", "buffer.memory", "1048576"));
    CompletableFuture<Integer> run = runAsync(settings, out, err);
    Thread.sleep(1500);
    long stoppedNs = System.nanoTime();
    cluster.close();

    assertThat(run.get(60, TimeUnit.SECONDS)).as(err.toString()).isEqualTo(1);
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - stoppedNs)).isLessThan(60);
    assertThat(err.toString()).contains("produce failed:").contains("max.block.ms=1000");
  }

  @Test
  void shouldStopAtTheFirstFailedRecordWithItsErrorNotSendTheRest() throws Exception {
    try (DevCluster cluster = SmallDevCluster.start(dir)) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      ProduceSettings settings =
          new ProduceSettings(cluster.bootstrap(), "nosuch", 5_000_000, 0, 100, -1, Map.of());

      int exit = runAsync(settings, out, err).get(60, TimeUnit.SECONDS);

      assertThat(exit).isEqualTo(1);
      assertThat(err.toString())
          .contains("produce failed after")
          .contains(
              "of 5000000 records were sent: unknown color 'nosuch'; the cluster has [global]");
    }
  }

  private static CompletableFuture<Integer> runAsync(
      ProduceSettings settings, StringWriter out, StringWriter err) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return ProduceBenchmark.run(
                settings, new PrintWriter(out, true), new PrintWriter(err, true));
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
