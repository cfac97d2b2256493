package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.DecoderHarness.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
  private static final int MAX_FRAME_BYTES = 1024;

  private final DecoderHarness harness = new DecoderHarness(MAX_FRAME_BYTES);

  @AfterEach
  void releasesEveryBuffer() {
    assertThat(harness.finishAndFindLeaks()).isEmpty();
  }

  @Test
  void shouldEmitFramesBeforeMalformedFrameThenFailOnceAndIgnoreEverythingAfter() {
    WireMessage first = new WireMessage.Read(1, 2, 3);
    byte[] good = DecoderProperties.encode(first);
    byte[] badMagic = DecoderProperties.encode(new WireMessage.Read(4, 5, 6));
    badMagic[FrameDescriptor.MAGIC_OFFSET + 1] = 0x0d;

    harness.write(Unpooled.wrappedBuffer(good, badMagic, good));
    harness.write(good);

    assertThat(harness.events).hasSize(2);
    assertThat(harness.events.get(0)).isEqualTo(new Frame(new WireMessage.Bytes(good), first));
    assertProtocolFailure(1, "bad magic 0xf10d, expected 0xf10c");
    assertThat(harness.finishAndFindLeaks()).isEmpty();
    assertThat(harness.events).hasSize(2);
  }

  @Test
  void shouldWaitForTheRestOfAFrameWithoutFailing() {
    byte[] frame = DecoderProperties.encode(new WireMessage.Watermark(7, 8));

    harness.write(Arrays.copyOf(frame, 3));
    harness.write(Arrays.copyOfRange(frame, 3, frame.length - 1));
    assertThat(harness.events).isEmpty();

    harness.write(Arrays.copyOfRange(frame, frame.length - 1, frame.length));
    assertThat(harness.frames()).hasSize(1);
    assertThat(harness.finishAndFindLeaks()).isEmpty();
  }

  @Test
  void shouldRejectLengthShorterThanTheHeader() {
    harness.write(frame(11, FrameDescriptor.MAGIC, 1, MessageType.METADATA_REQUEST, new byte[0]));

    assertProtocolFailure(0, "frame length 11 outside [12, 1020]");
  }

  @Test
  void shouldRejectOversizedLengthBeforeTheBodyArrives() {
    harness.write(Unpooled.buffer().writeInt(MAX_FRAME_BYTES - 3));

    assertProtocolFailure(0, "frame length 1021 outside [12, 1020]");
    assertThat(harness.finishAndFindLeaks()).isEmpty();
  }

  @Test
  void shouldAcceptAFrameOfExactlyMaxFrameBytes() {
    int payload = MAX_FRAME_BYTES - FrameDescriptor.HEADER_LENGTH - AppendDescriptor.PAYLOAD_OFFSET;
    WireMessage append =
        new WireMessage.Append(1, 2, 3, 4, 5, new WireMessage.Bytes(new byte[payload]));
    byte[] bytes = DecoderProperties.encode(append);
    assertThat(bytes).hasSize(MAX_FRAME_BYTES);

    harness.write(bytes);

    assertThat(harness.events).containsExactly(new Frame(new WireMessage.Bytes(bytes), append));
  }

  @Test
  void shouldRejectUnsupportedVersion() {
    harness.write(frame(12, FrameDescriptor.MAGIC, 2, MessageType.METADATA_REQUEST, new byte[0]));

    assertProtocolFailure(0, "unsupported protocol version 2");
  }

  @Test
  void shouldRejectUnknownFrameType() {
    harness.write(frame(12, FrameDescriptor.MAGIC, 1, (byte) 127, new byte[0]));

    assertProtocolFailure(0, "unknown frame type 127");
  }

  @Test
  void shouldRejectFixedSizeBodyOfWrongLength() {
    harness.write(frame(12 + 11, FrameDescriptor.MAGIC, 1, MessageType.READ, new byte[11]));

    assertProtocolFailure(0, "READ body must be 12 bytes, got 11");
  }

  @Test
  void shouldRejectCountThatDisagreesWithBodyLength() {
    ByteBuf body = Unpooled.buffer().writeInt(9).writeInt(3).writeInt(10).writeInt(11);

    harness.write(frame(12 + 16, FrameDescriptor.MAGIC, 1, MessageType.HELLO, bytes(body)));

    assertProtocolFailure(0, "HELLO count 3 does not match body length 16");
  }

  @Test
  void shouldRejectNegativeAppendPayloadLength() {
    ByteBuf body = Unpooled.buffer().writeLong(1).writeLong(2).writeInt(3).writeInt(4).writeInt(-1);

    harness.write(frame(12 + 28, FrameDescriptor.MAGIC, 1, MessageType.APPEND, bytes(body)));

    assertProtocolFailure(0, "APPEND payload length -1 does not match frame body 28");
  }

  @Test
  void shouldRejectReadResponseWithUnknownStatus() {
    byte[] body = new byte[ReadResponseDescriptor.PAYLOAD_OFFSET];
    body[ReadResponseDescriptor.STATUS_OFFSET] = 4;

    harness.write(
        frame(12 + body.length, FrameDescriptor.MAGIC, 1, MessageType.READ_RESPONSE, body));

    assertProtocolFailure(0, "READ_RESPONSE has unknown status 4");
  }

  @Test
  void shouldRejectErrorWhoseMessageLengthDisagreesWithBody() {
    ByteBuf body =
        Unpooled.buffer()
            .writeShort(1)
            .writeShort(5)
            .writeBytes("four".getBytes(StandardCharsets.UTF_8));

    harness.write(frame(12 + 8, FrameDescriptor.MAGIC, 1, MessageType.ERROR, bytes(body)));

    assertProtocolFailure(0, "ERROR message length 5 does not match frame");
  }

  @Test
  void shouldRejectTruncatedMetadataResponse() {
    ByteBuf body = Unpooled.buffer().writeLong(1).writeInt(1024).writeInt(1).writeInt(1);

    harness.write(
        frame(12 + 20, FrameDescriptor.MAGIC, 1, MessageType.METADATA_RESPONSE, bytes(body)));

    assertProtocolFailure(0, "METADATA_RESPONSE is truncated");
  }

  @Test
  void shouldRejectMetadataResponseWithHugeNodeCount() {
    ByteBuf body = Unpooled.buffer().writeLong(1).writeInt(1024).writeInt(Integer.MAX_VALUE);

    harness.write(
        frame(12 + 16, FrameDescriptor.MAGIC, 1, MessageType.METADATA_RESPONSE, bytes(body)));

    assertProtocolFailure(0, "METADATA_RESPONSE: bad node count 2147483647");
  }

  /**
   * A peer that sends a color tree with a cycle must not get past the decoder: {@link
   * io.flexlog.core.model.Topology#isInSubtree} walks parents until the root and would loop
   * forever.
   */
  @Test
  void shouldRejectMetadataResponseWhoseColorTreeHasACycle() {
    ByteBuf body =
        Unpooled.buffer()
            .writeLong(1) // topology version
            .writeInt(1024) // max record bytes
            .writeInt(1) // one node: sequencer 1 at "s":1
            .writeInt(1)
            .writeByte(0)
            .writeShort(1)
            .writeBytes("s".getBytes(StandardCharsets.UTF_8))
            .writeInt(1)
            .writeInt(3); // colors: global, then a -> b -> a
    color(body, 0, -1, "global");
    color(body, 1, 2, "a");
    color(body, 2, 1, "b");
    body.writeInt(0); // no shards

    harness.write(
        frame(
            12 + body.readableBytes(),
            FrameDescriptor.MAGIC,
            1,
            MessageType.METADATA_RESPONSE,
            bytes(body)));

    assertThat(harness.frames()).isEmpty();
    assertProtocolFailure(0, "METADATA_RESPONSE is inconsistent");
    assertThat(harness.finishAndFindLeaks()).isEmpty();
  }

  @Test
  void shouldRejectSubscribeRecordsWhosePayloadLengthsDisagreeWithBody() {
    ByteBuf body =
        Unpooled.buffer()
            .writeInt(1)
            .writeInt(2)
            .writeLong(3)
            .writeInt(2)
            .writeLong(10)
            .writeInt(3)
            .writeLong(11)
            .writeInt(1)
            .writeBytes(new byte[] {1, 2, 3});

    harness.write(
        frame(
            12 + body.readableBytes(),
            FrameDescriptor.MAGIC,
            1,
            MessageType.SUBSCRIBE_RECORDS,
            bytes(body)));

    assertProtocolFailure(
        0, "SUBSCRIBE_RECORDS payload lengths sum to 4 but the body has 3 payload bytes");
  }

  @Test
  void shouldRejectSubscribeRecordsWithNegativePayloadLength() {
    ByteBuf body = Unpooled.buffer().writeInt(1).writeInt(2).writeLong(3).writeInt(1).writeLong(10);
    body.writeInt(-4);

    harness.write(
        frame(
            12 + body.readableBytes(),
            FrameDescriptor.MAGIC,
            1,
            MessageType.SUBSCRIBE_RECORDS,
            bytes(body)));

    assertProtocolFailure(0, "SUBSCRIBE_RECORDS record 0 has negative payload length -4");
  }

  @Test
  void shouldRejectSubscribeRecordsWhoseCountDoesNotFitTheBody() {
    ByteBuf body = Unpooled.buffer().writeInt(1).writeInt(2).writeLong(3).writeInt(1_000_000);

    harness.write(
        frame(
            12 + body.readableBytes(),
            FrameDescriptor.MAGIC,
            1,
            MessageType.SUBSCRIBE_RECORDS,
            bytes(body)));

    assertProtocolFailure(0, "SUBSCRIBE_RECORDS count 1000000 does not fit body length 20");
  }

  @Test
  void shouldRejectUnsubscribeWithABody() {
    harness.write(frame(12 + 1, FrameDescriptor.MAGIC, 1, MessageType.UNSUBSCRIBE, new byte[1]));

    assertProtocolFailure(0, "UNSUBSCRIBE body must be 0 bytes, got 1");
  }

  @Test
  void shouldRefuseMaxFrameBytesSmallerThanTheHeader() {
    ThrowableAssert.ThrowingCallable tooSmall = () -> new FrameDecoder(15);

    assertThatThrownBy(tooSmall)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFrameBytes too small: 15");
  }

  private void assertProtocolFailure(int eventIndex, String messagePart) {
    assertThat(harness.events).hasSizeGreaterThan(eventIndex);
    assertThat(harness.events.get(eventIndex)).isInstanceOf(DecoderHarness.Failure.class);
    Throwable cause = ((DecoderHarness.Failure) harness.events.get(eventIndex)).cause();
    assertThat(cause).isInstanceOf(DecoderException.class);
    assertThat(cause.getCause())
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining(messagePart);
    assertThat(harness.events).hasSize(eventIndex + 1);
  }

  private static void color(ByteBuf body, int id, int parent, String name) {
    byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
    body.writeInt(id).writeInt(parent).writeInt(1).writeShort(utf8.length).writeBytes(utf8);
  }

  private static byte[] bytes(ByteBuf buf) {
    return Arrays.copyOf(buf.array(), buf.writerIndex());
  }

  /** A frame written field by field, so that each field can be wrong. */
  private static ByteBuf frame(int length, short magic, int version, byte type, byte[] body) {
    return Unpooled.buffer()
        .writeInt(length)
        .writeShort(magic)
        .writeByte(version)
        .writeByte(type)
        .writeLong(0x0102030405060708L)
        .writeBytes(body);
  }
}
