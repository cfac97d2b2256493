package io.flexlog.client.producer.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.record.RecordFields;
import io.flexlog.core.record.RecordFormatDescriptor;
import io.flexlog.core.record.RecordHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A batch encodes its records into one buffer that grows as needed; each record leaves as a view of
 * exactly its bytes (the views carry re-sends), and the buffer is the views back to back.
 */
class ProducerBatchTest {
  private final List<Long> appended = new ArrayList<>();

  private final RecordCompletion completion =
      new RecordCompletion() {
        @Override
        public void onAppended(long sn) {
          appended.add(sn);
        }

        @Override
        public void onFailed(FlexLogException error) {
          throw new AssertionError(error);
        }
      };

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void add(ProducerBatch batch, String key, String value, List<RecordHeader> h) {
    byte[] k = key == null ? null : bytes(key);
    byte[] v = bytes(value);
    int length = RecordFormatDescriptor.prefixLength(k, h) + v.length;
    batch.add(length, RecordFormatDescriptor.COMPRESSION_NONE, 7L, k, h, v, v.length, null);
  }

  @Test
  void shouldHandEachRecordOverAsAViewOfItsOwnBytesInAGrownBuffer() {
    ProducerBatch batch =
        new ProducerBatch("events", 1, 2, Unpooled.directBuffer(16), new ProducerMetrics());
    List<RecordHeader> headers = List.of(new RecordHeader("trace", new byte[] {9}));
    add(batch, "k0", "first", List.of());
    add(batch, null, "x".repeat(500), headers);
    add(batch, "k2", "third", headers);

    ByteBuf[] payloads = batch.takePayloads();
    ByteBuf whole = batch.whole();

    assertThat(payloads).hasSize(3);
    String[] values = {"first", "x".repeat(500), "third"};
    int total = 0;
    for (int i = 0; i < 3; i++) {
      RecordFields fields =
          RecordFormatDescriptor.read(
              payloads[i], payloads[i].readerIndex(), payloads[i].readableBytes());
      byte[] value = new byte[fields.storedValueLength()];
      payloads[i].getBytes(fields.valueOffset(), value);
      assertThat(new String(value, StandardCharsets.UTF_8)).as("record %d", i).isEqualTo(values[i]);
      assertThat(fields.headers()).isEqualTo(i == 0 ? List.of() : headers);
      assertThat(fields.timestampMs()).isEqualTo(7L);
      total += payloads[i].readableBytes();
    }
    assertThat(whole.readableBytes()).isEqualTo(total).isEqualTo(batch.bytes());
    ByteBuf joined = Unpooled.wrappedBuffer(payloads[0], payloads[1], payloads[2]);
    assertThat(ByteBufUtil.getBytes(joined)).isEqualTo(ByteBufUtil.getBytes(whole));

    whole.release();
    assertThat(whole.refCnt()).as("held by the views").isEqualTo(3);
    joined.release(); // releases the three views
    assertThat(whole.refCnt()).isZero();
  }

  @Test
  void shouldLeaveTheBatchAsItWasWhenARecordCannotBeEncoded() {
    ProducerBatch batch =
        new ProducerBatch("events", 1, 2, Unpooled.directBuffer(64), new ProducerMetrics());
    add(batch, "k0", "first", List.of());
    int before = batch.bytes();
    List<RecordHeader> tooLong = List.of(new RecordHeader("h".repeat(70_000), null));

    assertThatThrownBy(() -> batch.add(100, 0, 1L, null, tooLong, new byte[1], 1, completion))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exceeds 65535 bytes");

    assertThat(batch.bytes()).isEqualTo(before);
    assertThat(batch.count()).isEqualTo(1);
    batch.takePayloads()[0].release();
    batch.whole().release();
  }

  @Test
  void shouldCompleteEachRecordAndThenTheBatch() {
    ProducerBatch batch =
        new ProducerBatch("events", 1, 2, Unpooled.directBuffer(64), new ProducerMetrics());
    byte[] v = bytes("v");
    int length = RecordFormatDescriptor.prefixLength(null, List.of()) + 1;
    batch.add(length, 0, 1L, null, List.of(), v, 1, completion);
    batch.add(length, 0, 1L, null, List.of(), v, 1, completion);
    for (ByteBuf payload : batch.takePayloads()) {
      payload.release();
    }
    batch.whole().release();

    batch.onAppended(0, 10);
    assertThat(batch.done).isNotDone();
    batch.onAppended(1, 11);

    assertThat(appended).containsExactly(10L, 11L);
    assertThat(batch.done).isCompleted();
  }
}
