package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.LogRecord;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.record.RecordFormatDescriptor;
import io.flexlog.core.record.RecordHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RecordCodecTest {
  private static final List<RecordHeader> HEADERS =
      List.of(new RecordHeader("trace", "abc".getBytes(StandardCharsets.UTF_8)));

  @ParameterizedTest
  @ValueSource(strings = {"none", "lz4", "zstd"})
  void shouldReadBackKeyHeadersTimestampAndTheDecompressedValue(String compression) {
    byte[] value = new byte[4000];
    Arrays.fill(value, (byte) 'v');
    ByteBuf stored =
        RecordCodec.encode(
            UnpooledByteBufAllocator.DEFAULT,
            Compression.codec(compression),
            1234L,
            "key".getBytes(StandardCharsets.UTF_8),
            HEADERS,
            value);
    if (!compression.equals("none")) {
      assertThat(stored.readableBytes()).isLessThan(1000);
    }

    LogRecord record = RecordCodec.read("c", 5, stored, 0, stored.readableBytes());

    assertThat(record.payload()).isEqualTo(value);
    assertThat(record.key()).isEqualTo("key".getBytes(StandardCharsets.UTF_8));
    assertThat(record.headers()).isEqualTo(HEADERS);
    assertThat(record.timestampMs()).isEqualTo(1234L);
    stored.release();
  }

  @Test
  void shouldReadARawPayloadAsItIs() {
    ByteBuf raw = Unpooled.wrappedBuffer("plain".getBytes(StandardCharsets.UTF_8));
    ByteBuf stored = RecordCodec.storable(raw);

    assertThat(stored).isSameAs(raw);
    LogRecord record = RecordCodec.read("c", 5, stored, 0, stored.readableBytes());
    assertThat(record.payload()).isEqualTo("plain".getBytes(StandardCharsets.UTF_8));
    assertThat(record.key()).isNull();
    assertThat(record.timestampMs()).isEqualTo(LogRecord.NO_TIMESTAMP);
  }

  @Test
  void shouldWrapARawPayloadThatLooksLikeFormatOneSoItReadsBackAsWritten() {
    byte[] tricky = Unpooled.buffer().writeInt(RecordFormatDescriptor.MAGIC).writeByte(9).array();
    tricky = Arrays.copyOf(tricky, 5);
    ByteBuf stored = RecordCodec.storable(Unpooled.wrappedBuffer(tricky));

    LogRecord record = RecordCodec.read("c", 5, stored, 0, stored.readableBytes());

    assertThat(record.payload()).isEqualTo(tricky);
    stored.release();
  }

  @Test
  void shouldNameTheRecordOfAMalformedFormatOnePayload() {
    ByteBuf bad = Unpooled.buffer().writeInt(RecordFormatDescriptor.MAGIC).writeByte(7);
    assertThatThrownBy(() -> RecordCodec.read("orders", 42, bad, 0, bad.readableBytes()))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("record 42 of color 'orders' is unreadable");
    assertThat(ByteBufUtil.getBytes(bad)).hasSize(5);
  }

  @Test
  void shouldRefuseAnUnknownCompressionByName() {
    assertThatThrownBy(() -> Compression.codec("snappy"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("compression.type")
        .hasMessageContaining("none, lz4, zstd");
  }
}
