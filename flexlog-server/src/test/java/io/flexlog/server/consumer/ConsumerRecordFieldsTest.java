package io.flexlog.server.consumer;

import static io.flexlog.server.consumer.ConsumerCluster.pollCount;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.Deserializers;
import io.flexlog.client.consumer.FlexLogConsumer;
import io.flexlog.client.consumer.RecordDeserializationException;
import io.flexlog.client.producer.FlexLogProducer;
import io.flexlog.client.producer.ProducerRecord;
import io.flexlog.client.producer.RecordMetadata;
import io.flexlog.client.producer.Serializers;
import io.flexlog.core.record.RecordHeader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer returns every field a producer stored (record format 1,
 * docs/protocol.md#record-format): key, headers, timestamp and the value, with each compression
 * codec, read as a whole color and as single shards; raw appends keep having no key, no headers and
 * no timestamp.
 */
class ConsumerRecordFieldsTest {
  private static final String COLOR = "orders";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @TempDir Path data;
  private ConsumerCluster c;

  /** What a record was produced with, keyed by the SN it got. */
  private record Sent(String key, String value, List<RecordHeader> headers, long timestamp) {}

  @BeforeEach
  void start() throws Exception {
    c = new ConsumerCluster(data, COLOR, 4);
  }

  @AfterEach
  void stop() {
    if (c != null) {
      c.close();
    }
  }

  private FlexLogProducer<String, String> producer(String compression) {
    Properties p = new Properties();
    p.put("bootstrap.servers", c.cluster.bootstrap());
    p.put("compression.type", compression);
    p.put("linger.ms", "5");
    return new FlexLogProducer<>(p, new Serializers.String(), new Serializers.String());
  }

  private FlexLogConsumer<String, String> stringConsumer() {
    Map<String, Object> settings = c.settings(null);
    settings.put("key.deserializer", Deserializers.StringDeserializer.class.getName());
    settings.put("value.deserializer", Deserializers.StringDeserializer.class.getName());
    return new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null);
  }

  /**
   * Produces with every codec: keys (and none), headers (repeated names, a null value, none),
   * explicit timestamps (and the producer's clock); plus raw appends.
   */
  private TreeMap<Long, Sent> produce() throws Exception {
    TreeMap<Long, Sent> sent = new TreeMap<>();
    int n = 0;
    for (String codec : List.of("none", "lz4", "zstd")) {
      List<Future<RecordMetadata>> futures = new ArrayList<>();
      List<ProducerRecord<String, String>> records = new ArrayList<>();
      try (FlexLogProducer<String, String> producer = producer(codec)) {
        for (int i = 0; i < 30; i++, n++) {
          String key = i % 10 == 9 ? null : "key-" + (i % 5);
          List<RecordHeader> headers =
              i % 3 == 0
                  ? List.of()
                  : List.of(
                      new RecordHeader("trace", ("t" + n).getBytes(StandardCharsets.UTF_8)),
                      new RecordHeader("trace", new byte[] {(byte) n, 0, -1}),
                      new RecordHeader("empty", null));
          Long timestamp = i % 4 == 0 ? null : 1_700_000_000_000L + n;
          // Long, repetitive values, so that lz4 and zstd really compress them.
          String value = codec + "-" + n + "-" + "abcdefgh".repeat(i * 8);
          ProducerRecord<String, String> record =
              new ProducerRecord<>(COLOR, key, value, headers, timestamp);
          records.add(record);
          futures.add(producer.send(record));
        }
        producer.flush();
      }
      for (int i = 0; i < futures.size(); i++) {
        RecordMetadata m = futures.get(i).get(30, TimeUnit.SECONDS);
        ProducerRecord<String, String> r = records.get(i);
        long timestamp = r.timestampMs() == null ? m.timestampMs() : r.timestampMs();
        assertThat(timestamp).isPositive();
        sent.put(m.sn(), new Sent(r.key(), r.value(), r.headers(), timestamp));
      }
    }
    for (int i = 0; i < 5; i++) {
      String value = "raw-" + i;
      long sn = c.log.append(COLOR, value.getBytes(StandardCharsets.UTF_8));
      sent.put(sn, new Sent(null, value, List.of(), ConsumerRecord.NO_TIMESTAMP));
    }
    return sent;
  }

  private static void assertSameFields(ConsumerRecord<String, String> got, Sent expected) {
    assertThat(got.color()).isEqualTo(COLOR);
    assertThat(got.key()).as("key of SN %d", got.sn()).isEqualTo(expected.key());
    assertThat(got.value()).as("value of SN %d", got.sn()).isEqualTo(expected.value());
    assertThat(got.headers()).as("headers of SN %d", got.sn()).isEqualTo(expected.headers());
    assertThat(got.timestamp()).as("timestamp of SN %d", got.sn()).isEqualTo(expected.timestamp());
    assertThat(got.serializedKeySize())
        .isEqualTo(expected.key() == null ? -1 : expected.key().length());
    assertThat(got.serializedValueSize()).isEqualTo(expected.value().length());
  }

  @Test
  void shouldReturnKeyHeadersTimestampAndValueAsProducedForTheWholeColor() throws Exception {
    TreeMap<Long, Sent> sent = produce();
    try (FlexLogConsumer<String, String> consumer = stringConsumer()) {
      consumer.assign(List.of(ColorShard.wholeColor(COLOR)));
      List<ConsumerRecord<String, String>> got = pollCount(consumer, sent.size(), PATIENCE);
      assertThat(got.stream().map(ConsumerRecord::sn).toList())
          .containsExactlyElementsOf(sent.keySet());
      for (ConsumerRecord<String, String> r : got) {
        assertSameFields(r, sent.get(r.sn()));
      }
    }
  }

  @Test
  void shouldReturnTheSameFieldsShardByShardWithOneShardPerKey() throws Exception {
    TreeMap<Long, Sent> sent = produce();
    List<ColorShard> shards = new ArrayList<>();
    c.log.topology().shardsInSubtree(c.log.topology().color(COLOR).orElseThrow().id()).stream()
        .forEach(s -> shards.add(ColorShard.of(COLOR, s.id())));
    assertThat(shards).hasSize(4);
    Map<Long, ConsumerRecord<String, String>> got = new TreeMap<>();
    Map<String, Integer> shardOfKey = new HashMap<>();
    try (FlexLogConsumer<String, String> consumer = stringConsumer()) {
      consumer.assign(shards);
      for (ConsumerRecord<String, String> r : pollCount(consumer, sent.size(), PATIENCE)) {
        got.put(r.sn(), r);
        if (r.key() != null) {
          Integer before = shardOfKey.putIfAbsent(r.key(), r.shard());
          assertThat(before == null ? r.shard() : before)
              .as("shard of key %s", r.key())
              .isEqualTo(r.shard());
        }
      }
    }
    assertThat(got.keySet()).containsExactlyElementsOf(sent.keySet());
    got.forEach((sn, r) -> assertSameFields(r, sent.get(sn)));
  }

  /**
   * A format-1 record stores more bytes than its value: the window must count the same bytes when a
   * record arrives and when it is consumed, or each record leaks the difference and the stream
   * stops once the leaks fill the window (here about 40 bytes a record against a 16 KiB window).
   */
  @Test
  void shouldKeepReadingSmallKeyedRecordsFarBeyondTheWindow() throws Exception {
    int count = 3000;
    List<Future<RecordMetadata>> futures = new ArrayList<>();
    try (FlexLogProducer<String, String> producer = producer("none")) {
      for (int i = 0; i < count; i++) {
        futures.add(
            producer.send(
                new ProducerRecord<>(
                    COLOR,
                    "key-" + i,
                    "v" + i,
                    List.of(new RecordHeader("h", new byte[] {1, 2})),
                    1_700_000_000_000L)));
      }
    }
    for (Future<RecordMetadata> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    Map<String, Object> settings = c.settings(null);
    settings.put("fetch.max.bytes", "16384");
    settings.put("value.deserializer", Deserializers.StringDeserializer.class.getName());
    try (FlexLogConsumer<byte[], String> consumer =
        new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null)) {
      consumer.assign(List.of(ColorShard.wholeColor(COLOR)));
      List<ConsumerRecord<byte[], String>> got = pollCount(consumer, count, PATIENCE);
      assertThat(got).hasSize(count);
      assertThat(got.get(count - 1).headers())
          .containsExactly(new RecordHeader("h", new byte[] {1, 2}));
    }
  }

  @Test
  void shouldNameTheRecordWhoseKeyDoesNotDeserializeAndSkipItOnSeek() throws Exception {
    TreeMap<Long, Sent> sent = produce();
    long bad;
    try (FlexLogProducer<String, String> producer = producer("lz4")) {
      bad =
          producer.send(new ProducerRecord<>(COLOR, "poison", "p")).get(30, TimeUnit.SECONDS).sn();
      sent.put(bad, new Sent("poison", "p", List.of(), 0));
    }
    sent.putAll(produce());
    Map<String, Object> settings = c.settings(null);
    settings.put("value.deserializer", Deserializers.StringDeserializer.class.getName());
    try (FlexLogConsumer<String, String> consumer =
        new FlexLogConsumer<>(
            ConsumerConfig.fromMap(settings),
            (color, key) -> {
              String k = new String(key, StandardCharsets.UTF_8);
              if (k.equals("poison")) {
                throw new IllegalArgumentException("no poison here");
              }
              return k;
            },
            null)) {
      ColorShard whole = ColorShard.wholeColor(COLOR);
      consumer.assign(List.of(whole));
      List<Long> before = new ArrayList<>();
      RecordDeserializationException error = null;
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (error == null && System.nanoTime() < deadline) {
        try {
          consumer.poll(Duration.ofMillis(50)).forEach(r -> before.add(r.sn()));
        } catch (RecordDeserializationException e) {
          error = e;
        }
      }
      assertThat(error).isNotNull();
      assertThat(error.sn()).isEqualTo(bad);
      assertThat(error.getMessage()).contains("'orders'").contains("no poison here");
      assertThat(before).containsExactlyElementsOf(sent.headMap(bad).keySet());
      consumer.seek(whole, bad + 1);
      ConsumerRecord<String, String> next = pollCount(consumer, 1, PATIENCE).get(0);
      assertThat(next.sn()).isEqualTo(sent.tailMap(bad + 1).firstKey());
    }
  }
}
