package io.flexlog.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.LogRecord;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.Deserializer;
import io.flexlog.client.consumer.Deserializers;
import io.flexlog.core.record.RecordHeader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the consumer turns a record read from the log into a {@link ConsumerRecord}. */
class FetcherRecordTest {
  private static final Deserializer<String> STRING = new Deserializers.StringDeserializer();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldCarryKeyHeadersAndTimestampOfAFormattedRecord() {
    List<RecordHeader> headers =
        List.of(new RecordHeader("a", utf8("1")), new RecordHeader("a", null));
    LogRecord stored = new LogRecord("c", 42, utf8("value"), utf8("the-key"), headers, 1234L);

    ConsumerRecord<String, String> r = Fetcher.toConsumerRecord(3, stored, STRING, STRING);

    assertThat(r.color()).isEqualTo("c");
    assertThat(r.shard()).isEqualTo(3);
    assertThat(r.sn()).isEqualTo(42);
    assertThat(r.key()).isEqualTo("the-key");
    assertThat(r.value()).isEqualTo("value");
    assertThat(r.headers()).isEqualTo(headers);
    assertThat(r.timestamp()).isEqualTo(1234L);
    assertThat(r.serializedKeySize()).isEqualTo(7);
    assertThat(r.serializedValueSize()).isEqualTo(5);
  }

  @Test
  void shouldGiveARawRecordNoKeyNoHeadersAndNoTimestampWithoutCallingTheKeyDeserializer() {
    List<byte[]> keysSeen = new ArrayList<>();
    Deserializer<String> keys =
        (color, data) -> {
          keysSeen.add(data);
          return "called";
        };

    ConsumerRecord<String, String> r =
        Fetcher.toConsumerRecord(0, new LogRecord("c", 7, utf8("raw")), keys, STRING);

    assertThat(keysSeen).isEmpty();
    assertThat(r.key()).isNull();
    assertThat(r.headers()).isEmpty();
    assertThat(r.timestamp()).isEqualTo(ConsumerRecord.NO_TIMESTAMP);
    assertThat(r.serializedKeySize()).isEqualTo(-1);
    assertThat(r.value()).isEqualTo("raw");
  }

  @Test
  void shouldPassTheColorToBothDeserializersAndLetTheirFailuresThrough() {
    List<String> colors = new ArrayList<>();
    Deserializer<String> keys =
        (color, data) -> {
          colors.add(color);
          throw new IllegalStateException("bad key " + new String(data, StandardCharsets.UTF_8));
        };
    LogRecord stored = new LogRecord("orders", 1, utf8("v"), utf8("k"), List.of(), 5L);

    assertThatThrownBy(() -> Fetcher.toConsumerRecord(0, stored, keys, STRING))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("bad key k");
    assertThat(colors).containsExactly("orders");
  }
}
