package io.flexlog.bench.consume;

import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.FlexLogConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A group member in its own process, for {@link RebalanceRun} to kill: joins {@code group} for
 * {@code color} and polls until killed. Prints "assigned N" whenever its assignment changes.
 */
public final class ConsumeMember {
  private ConsumeMember() {}

  /** Arguments: bootstrap, color, group, session timeout ms. */
  public static void main(String[] args) {
    Map<String, Object> settings =
        Map.of(
            "bootstrap.servers", args[0],
            "group.id", args[2],
            "auto.offset.reset", "latest",
            "session.timeout.ms", args[3],
            "heartbeat.interval.ms", Long.toString(Long.parseLong(args[3]) / 3));
    try (FlexLogConsumer<byte[], byte[]> consumer =
        new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null)) {
      consumer.subscribe(List.of(args[1]));
      int assigned = -1;
      while (true) {
        consumer.poll(Duration.ofMillis(100));
        if (consumer.assignment().size() != assigned) {
          assigned = consumer.assignment().size();
          System.out.println("assigned " + assigned);
          System.out.flush();
        }
      }
    }
  }
}
