package io.flexlog.core.protocol;

import static io.flexlog.core.protocol.FrameGoldenBytesTest.assertGolden;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of the sequencer-to-sequencer frames (types 20-23), written out by hand from the
 * documented layouts, and the decoder's refusal of values those layouts forbid. Same conventions as
 * {@link FrameGoldenBytesTest}: distinct byte patterns per field, spaces separate fields.
 */
class SequencerFrameGoldenBytesTest {
  private static final long REQUEST_ID = 0x1a1b1c1d1e1f2021L;
  private static final int NODE = 0x51525354;
  private static final int INCARNATION = 0x0a0b0c0d;
  private static final long VERSION = 0x7172737475767778L;
  private static final int COLOR = 0x31323334;
  private static final int VIA = 0x35363738;
  private static final int COUNT = 0x0c0d0e0f;
  private static final long OLDEST = 0x4142434445464748L;
  private static final long SN = 0x6162636465666768L;

  private final DecoderHarness harness = new DecoderHarness(1024);

  @AfterEach
  void releasesEveryBuffer() {
    assertThat(harness.finishAndFindLeaks()).isEmpty();
  }

  @Test
  void sequencerHelloMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.SequencerHello(NODE, INCARNATION, VERSION),
        "0000001c f10c 01 14 0000000000000000 51525354 0a0b0c0d 7172737475767778");
  }

  @Test
  void rangeRequestCarriesItsIdInTheHeaderAndMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.RangeRequest(REQUEST_ID, COLOR, VIA, COUNT, OLDEST),
        "00000020 f10c 01 15 1a1b1c1d1e1f2021 31323334 35363738 0c0d0e0f 4142434445464748");
  }

  @Test
  void rangeResponseEchoesTheRequestIdAndMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.RangeResponse(REQUEST_ID, COLOR, SN, COUNT),
        "0000001c f10c 01 16 1a1b1c1d1e1f2021 31323334 6162636465666768 0c0d0e0f");
  }

  @Test
  void treeWatermarkMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.TreeWatermark(COLOR, VIA, SN),
        "0000001c f10c 01 17 0000000000000000 31323334 35363738 6162636465666768");
  }

  @Test
  void shouldRejectASequencerHelloWithoutAnIncarnation() {
    harness.write(frame(MessageType.SEQUENCER_HELLO, 0, body(16).setInt(0, 3)));

    assertProtocolFailure("SEQUENCER_HELLO incarnation must be >= 1, got 0");
  }

  @Test
  void shouldRejectARangeRequestWithRequestIdZero() {
    harness.write(frame(MessageType.RANGE_REQUEST, 0, body(20).setInt(8, 5)));

    assertProtocolFailure("RANGE_REQUEST request id must be >= 1, got 0");
  }

  @Test
  void shouldRejectAnEmptyRange() {
    harness.write(frame(MessageType.RANGE_REQUEST, 9, body(20)));

    assertProtocolFailure("RANGE_REQUEST count must be >= 1, got 0");
  }

  @Test
  void shouldRejectARangeResponseStartingAtSnZero() {
    harness.write(frame(MessageType.RANGE_RESPONSE, 9, body(16).setInt(12, 1)));

    assertProtocolFailure("RANGE_RESPONSE first sn must be > 0, got 0");
  }

  @Test
  void shouldRejectATreeWatermarkOfTheWrongLength() {
    harness.write(frame(MessageType.TREE_WATERMARK, 0, body(12)));

    assertProtocolFailure("TREE_WATERMARK body must be 16 bytes, got 12");
  }

  @Test
  void shouldRejectATopologyMarkWithoutAVersionOrAtSnZero() {
    harness.write(frame(MessageType.TOPOLOGY_MARK, 0, body(24).setLong(8, 0).setLong(16, 5)));
    assertProtocolFailure("TOPOLOGY_MARK topology version must be >= 1, got 0");
  }

  @Test
  void shouldRejectATopologyMarkAtSnZero() {
    harness.write(frame(MessageType.TOPOLOGY_MARK, 0, body(24).setLong(8, 2).setLong(16, 0)));
    assertProtocolFailure("TOPOLOGY_MARK mark sn must be > 0, got 0");
  }

  @Test
  void shouldNameTheNewTypes() {
    assertThat(MessageType.name(MessageType.TOPOLOGY_MARK)).isEqualTo("TOPOLOGY_MARK");
    assertThat(MessageType.name(MessageType.SEQUENCER_HELLO)).isEqualTo("SEQUENCER_HELLO");
    assertThat(MessageType.name(MessageType.RANGE_REQUEST)).isEqualTo("RANGE_REQUEST");
    assertThat(MessageType.name(MessageType.RANGE_RESPONSE)).isEqualTo("RANGE_RESPONSE");
    assertThat(MessageType.name(MessageType.TREE_WATERMARK)).isEqualTo("TREE_WATERMARK");
  }

  /** A zero-filled body of {@code length} bytes; tests set fields with {@code setInt}. */
  private static ByteBuf body(int length) {
    return Unpooled.buffer(length, length).writeZero(length);
  }

  private static ByteBuf frame(byte type, long requestId, ByteBuf body) {
    int length = body.readableBytes();
    return Unpooled.buffer()
        .writeInt(FrameDescriptor.LENGTH_FIELD_OVERHEAD + length)
        .writeShort(FrameDescriptor.MAGIC)
        .writeByte(FrameDescriptor.VERSION)
        .writeByte(type)
        .writeLong(requestId)
        .writeBytes(body);
  }

  private void assertProtocolFailure(String message) {
    assertThat(harness.events).hasSize(1);
    assertThat(harness.events.get(0)).isInstanceOf(DecoderHarness.Failure.class);
    Throwable cause = ((DecoderHarness.Failure) harness.events.get(0)).cause();
    assertThat(cause).isInstanceOf(DecoderException.class);
    assertThat(cause.getCause()).isInstanceOf(ProtocolException.class).hasMessage(message);
  }
}
