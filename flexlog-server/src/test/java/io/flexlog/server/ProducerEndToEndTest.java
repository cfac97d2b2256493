package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.producer.FlexLogProducer;
import io.flexlog.client.producer.ProducerRecord;
import io.flexlog.client.producer.RecordMetadata;
import io.flexlog.client.producer.SerializationException;
import io.flexlog.client.producer.Serializer;
import io.flexlog.client.producer.Serializers;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.record.RecordHeader;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FlexLogProducer} end to end on the embedded cluster over real sockets: batches, record
 * fields returned by reads and subscriptions, per-key order, and the failure cases of issue 11.
 * Color {@code global} has two shards (one attached to its child {@code left}).
 */
class ProducerEndToEndTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @TempDir Path data;
  private DevCluster cluster;
  private FlexLog log;

  @BeforeEach
  void start() throws Exception {
    int port = FreePorts.consecutive(4);
    cluster =
        DevCluster.start(
            SubscribeEndToEndTest.twoShards(port),
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
    log = FlexLog.connect(cluster.bootstrap());
  }

  @AfterEach
  void stop() {
    if (log != null) {
      log.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private Properties props(String... keyValues) {
    Properties p = new Properties();
    p.put("bootstrap.servers", cluster.bootstrap());
    for (int i = 0; i < keyValues.length; i += 2) {
      p.put(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  private FlexLogProducer<String, String> producer(String... keyValues) {
    return new FlexLogProducer<>(
        props(keyValues), new Serializers.String(), new Serializers.String());
  }

  @Test
  void shouldStoreKeyHeadersAndTimestampAndReturnThemFromReadsAndSubscriptions() throws Exception {
    List<RecordHeader> headers = List.of(new RecordHeader("trace", new byte[] {1, 2}));
    RecordMetadata metadata;
    try (FlexLogProducer<String, String> producer = producer("compression.type", "zstd")) {
      metadata =
          producer
              .send(new ProducerRecord<>("global", "k1", "hello", headers, 1_700_000_000_000L))
              .get(30, TimeUnit.SECONDS);
    }
    assertThat(metadata.color()).isEqualTo("global");
    assertThat(metadata.serializedKeySize()).isEqualTo(2);
    assertThat(metadata.serializedValueSize()).isEqualTo(5);

    LogRecord read = log.read("global", metadata.sn()).orElseThrow();
    assertThat(new String(read.value(), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(read.key()).isEqualTo("k1".getBytes(StandardCharsets.UTF_8));
    assertThat(read.headers()).isEqualTo(headers);
    assertThat(read.timestampMs()).isEqualTo(1_700_000_000_000L);
    try (RecordStream stream = log.subscribe("global", metadata.sn())) {
      LogRecord streamed = stream.poll(PATIENCE);
      assertThat(streamed.sn()).isEqualTo(metadata.sn());
      assertThat(streamed.headers()).isEqualTo(headers);
      assertThat(streamed.key()).isEqualTo(read.key());
    }
  }

  @Test
  void shouldBatchRecordsAndKeepTheOrderOfOneKey() throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (FlexLogProducer<String, String> producer =
        producer("linger.ms", "20", "batch.size", "4096", "compression.type", "lz4")) {
      for (int i = 0; i < 500; i++) {
        sent.add(producer.send(new ProducerRecord<>("global", "same-key", "v" + i)));
      }
      producer.flush();
      assertThat(producer.metrics().get("records-per-request-avg")).isGreaterThan(2.0);
      assertThat(producer.metrics().get("record-send-total")).isEqualTo(500.0);
      assertThat(producer.metrics()).containsKey("record-retry-total");
    }
    long previous = 0;
    for (int i = 0; i < sent.size(); i++) {
      RecordMetadata m = sent.get(i).get();
      assertThat(m.sn()).as("record %d", i).isGreaterThan(previous);
      previous = m.sn();
    }
    LogRecord last = log.read("global", previous).orElseThrow();
    assertThat(new String(last.value(), StandardCharsets.UTF_8)).isEqualTo("v499");
  }

  /** Records of many sizes share batch buffers that start small and grow; each reads back whole. */
  @Test
  void shouldReadBackEveryRecordOfBatchesWhoseBufferGrew() throws Exception {
    Random random = new Random(42);
    List<String> values = new ArrayList<>();
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (FlexLogProducer<String, String> producer =
        producer("linger.ms", "50", "batch.size", "65536")) {
      for (int i = 0; i < 300; i++) {
        String value = i + ":" + "v".repeat(random.nextInt(3000));
        List<RecordHeader> headers =
            i % 3 == 0 ? List.of() : List.of(new RecordHeader("h" + i, new byte[i % 7]));
        values.add(value);
        sent.add(producer.send(new ProducerRecord<>("global", "k" + i, value, headers, (long) i)));
      }
      producer.flush();
      assertThat(producer.metrics().get("buffer-available-bytes"))
          .isEqualTo(producer.metrics().get("buffer-total-bytes"));
    }
    for (int i = 0; i < sent.size(); i++) {
      LogRecord read = log.read("global", sent.get(i).get().sn()).orElseThrow();
      assertThat(new String(read.value(), StandardCharsets.UTF_8)).isEqualTo(values.get(i));
      assertThat(read.key()).isEqualTo(("k" + i).getBytes(StandardCharsets.UTF_8));
      assertThat(read.headers()).hasSize(i % 3 == 0 ? 0 : 1);
      assertThat(read.timestampMs()).isEqualTo(i);
    }
  }

  @Test
  void shouldRefuseAHeaderNameOver65535BytesAndGoOn() throws Exception {
    try (FlexLogProducer<String, String> producer = producer("linger.ms", "20")) {
      List<RecordHeader> tooLong = List.of(new RecordHeader("h".repeat(70_000), null));
      assertThatThrownBy(
              () -> producer.send(new ProducerRecord<>("global", "k", "v", tooLong, null)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("header name of 70000 bytes exceeds 65535 bytes");

      RecordMetadata after =
          producer.send(new ProducerRecord<>("global", "after")).get(30, TimeUnit.SECONDS);
      assertThat(log.read("global", after.sn()).orElseThrow().value())
          .isEqualTo("after".getBytes(StandardCharsets.UTF_8));
      assertThat(producer.metrics().get("buffer-available-bytes"))
          .isEqualTo(producer.metrics().get("buffer-total-bytes"));
    }
  }

  @Test
  void shouldFailASendToAnUnknownColorWithUnknownColorException() {
    try (FlexLogProducer<String, String> producer = producer()) {
      Future<RecordMetadata> future = producer.send(new ProducerRecord<>("nope", "v"));
      assertThatThrownBy(future::get)
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(UnknownColorException.class)
          .hasMessageContaining("unknown color 'nope'");
    }
  }

  @Test
  void shouldFailARecordOverMaxRequestSizeWithRecordTooLargeException() {
    try (FlexLogProducer<String, String> producer = producer("max.request.size", "100")) {
      Future<RecordMetadata> future =
          producer.send(new ProducerRecord<>("global", "x".repeat(200)));
      assertThatThrownBy(future::get)
          .cause()
          .isInstanceOf(RecordTooLargeException.class)
          .hasMessageContaining("over max.request.size=100");
    }
  }

  @Test
  void shouldThrowSerializationExceptionWhenASerializerThrows() {
    Serializer<String> broken =
        (color, data) -> {
          throw new IllegalStateException("cannot encode " + data);
        };
    try (FlexLogProducer<String, String> producer =
        new FlexLogProducer<>(props(), new Serializers.String(), broken)) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("global", "v")))
          .isInstanceOf(SerializationException.class)
          .hasMessageContaining("value serializer")
          .hasMessageContaining("cannot encode v");
    }
  }

  @Test
  void shouldRefuseASendAfterClose() {
    FlexLogProducer<String, String> producer = producer();
    producer.close();
    assertThatThrownBy(() -> producer.send(new ProducerRecord<>("global", "v")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after the producer is closed");
  }

  @Test
  void shouldCompleteOrFailWithAClearErrorEveryRecordInFlightAtClose() {
    FlexLogProducer<String, String> producer = producer("linger.ms", "0");
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      sent.add(producer.send(new ProducerRecord<>("global", "v" + i)));
    }
    producer.close(Duration.ZERO);

    for (Future<RecordMetadata> future : sent) {
      assertThat(future).isDone();
      try {
        assertThat(future.get().sn()).isPositive();
      } catch (ExecutionException | InterruptedException e) {
        assertThat(e.getCause())
            .isInstanceOf(FlexLogException.class)
            .hasMessageContaining("the producer was closed with this record")
            .hasMessageContaining("it may still appear, at most once");
      }
    }
  }

  @Test
  void shouldBlockUpToMaxBlockMsOnAFullBufferThenThrow() throws Exception {
    try (FlexLogProducer<String, String> producer =
        producer(
            "buffer.memory", "2000",
            "max.block.ms", "300",
            "linger.ms", "60000",
            "batch.size", "1000000")) {
      producer.send(new ProducerRecord<>("global", "x".repeat(1500)));
      long start = System.nanoTime();
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("global", "x".repeat(1500))))
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("buffer.memory=2000 is full")
          .hasMessageContaining("max.block.ms=300");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
      producer.close(Duration.ofSeconds(30));
    }
  }
}
