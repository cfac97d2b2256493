package io.flexlog.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordFormatDescriptorTest {
  private static final byte[] KEY = "k1".getBytes(StandardCharsets.US_ASCII);
  private static final List<RecordHeader> HEADERS =
      List.of(new RecordHeader("h", new byte[] {0x61}), new RecordHeader("n", null));

  @Test
  void shouldWriteTheDocumentedLayout() {
    ByteBuf buf = encode(RecordFormatDescriptor.COMPRESSION_NONE, KEY, HEADERS, "xyz");
    assertThat(ByteBufUtil.hexDump(buf))
        .isEqualTo(
            ("f10c5243 01 00 0002 0000018bcfe56800 00000002 6b31"
                    + " 0001 68 00000001 61 0001 6e ffffffff 00000003 78797a")
                .replace(" ", ""));
    assertThat(RecordFormatDescriptor.prefixLength(KEY, HEADERS) + 3)
        .isEqualTo(buf.readableBytes());
  }

  @Test
  void shouldReadBackWhatItWrote() {
    ByteBuf buf = encode(RecordFormatDescriptor.COMPRESSION_NONE, KEY, HEADERS, "xyz");
    RecordFields fields = RecordFormatDescriptor.read(buf, 0, buf.readableBytes());
    assertThat(fields.key()).isEqualTo(KEY);
    assertThat(fields.headers()).isEqualTo(HEADERS);
    assertThat(fields.timestampMs()).isEqualTo(1_700_000_000_000L);
    assertThat(fields.valueLength()).isEqualTo(3);
    assertThat(
            buf.toString(
                fields.valueOffset(), fields.storedValueLength(), StandardCharsets.US_ASCII))
        .isEqualTo("xyz");
  }

  @Test
  void shouldReadARecordWithoutKeyOrHeaders() {
    ByteBuf buf = encode(RecordFormatDescriptor.COMPRESSION_NONE, null, List.of(), "");
    RecordFields fields = RecordFormatDescriptor.read(buf, 0, buf.readableBytes());
    assertThat(fields.key()).isNull();
    assertThat(fields.headers()).isEmpty();
    assertThat(fields.storedValueLength()).isZero();
  }

  @Test
  void shouldTellFormattedFromRawPayloads() {
    assertThat(RecordFormatDescriptor.isFormatted(encode(0, null, List.of(), "v"))).isTrue();
    assertThat(RecordFormatDescriptor.isFormatted(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4})))
        .isFalse();
    assertThat(RecordFormatDescriptor.isFormatted(Unpooled.wrappedBuffer(new byte[] {-15, 12})))
        .isFalse();
  }

  @Test
  void shouldRefuseAnUnknownVersion() {
    ByteBuf buf = encode(0, null, List.of(), "v");
    buf.setByte(RecordFormatDescriptor.VERSION_OFFSET, 2);
    assertThatThrownBy(() -> RecordFormatDescriptor.read(buf, 0, buf.readableBytes()))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("unknown record format version 2");
  }

  @Test
  void shouldRefuseAKeyLongerThanTheRecord() {
    ByteBuf buf = encode(0, KEY, List.of(), "v");
    buf.setInt(RecordFormatDescriptor.KEY_LENGTH_OFFSET, 1000);
    assertThatThrownBy(() -> RecordFormatDescriptor.read(buf, 0, buf.readableBytes()))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("key length 1000");
  }

  @Test
  void shouldRefuseAnUncompressedValueOfTheWrongLength() {
    ByteBuf buf = encode(0, null, List.of(), "v");
    assertThatThrownBy(() -> RecordFormatDescriptor.read(buf, 0, buf.readableBytes() - 1))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("value length 1 with 0 stored bytes");
  }

  private static ByteBuf encode(
      int compression, byte[] key, List<RecordHeader> headers, String value) {
    ByteBuf buf = Unpooled.buffer();
    byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
    RecordFormatDescriptor.writePrefix(
        buf, compression, 1_700_000_000_000L, key, headers, bytes.length);
    buf.writeBytes(bytes);
    return buf;
  }
}
