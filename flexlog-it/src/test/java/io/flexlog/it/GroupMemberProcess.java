package io.flexlog.it;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.CommitFailedException;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRebalanceListener;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.ConsumerRecords;
import io.flexlog.client.consumer.FlexLogConsumer;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A consumer group member in its own process, for {@link ConsumerGroupProcessTest} to kill: joins
 * the group, and for every record polled appends {@code <shard> <sn>} to its output file, then
 * commits synchronously. A commit rejected after a rebalance is written as {@code fenced};
 * assignment changes as {@code assigned [...]} and {@code revoked [...]}.
 */
public final class GroupMemberProcess {
  private GroupMemberProcess() {}

  /** Arguments: bootstrap, color, group, output file. */
  public static void main(String[] args) throws Exception {
    Map<String, Object> settings =
        Map.of(
            "bootstrap.servers", args[0],
            "group.id", args[2],
            "auto.offset.reset", "earliest",
            "enable.auto.commit", "false",
            "session.timeout.ms", "2000",
            "heartbeat.interval.ms", "500");
    try (PrintStream out = new PrintStream(new FileOutputStream(args[3], true), true);
        FlexLogConsumer<byte[], byte[]> consumer =
            new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null)) {
      consumer.subscribe(
          List.of(args[1]),
          new ConsumerRebalanceListener() {
            @Override
            public void onRevoked(Collection<ColorShard> revoked) {
              out.println("revoked " + revoked);
            }

            @Override
            public void onAssigned(Collection<ColorShard> assigned) {
              out.println("assigned " + assigned);
            }
          });
      System.out.println("member ready");
      while (true) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          out.println(r.shard() + " " + r.sn());
        }
        if (!records.isEmpty()) {
          try {
            consumer.commitSync();
          } catch (CommitFailedException e) {
            out.println("fenced");
          }
        }
      }
    }
  }
}
