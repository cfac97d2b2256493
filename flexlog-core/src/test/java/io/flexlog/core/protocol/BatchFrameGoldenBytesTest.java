package io.flexlog.core.protocol;

import static io.flexlog.core.protocol.FrameGoldenBytesTest.assertGolden;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.WireMessage.BatchOutcome;
import io.flexlog.core.protocol.WireMessage.BatchedRecord;
import io.flexlog.core.protocol.WireMessage.Bytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of the batched-append frames (types 60-61), written out by hand from the documented
 * layouts (docs/protocol.md#append_batch). Same conventions as {@link FrameGoldenBytesTest}.
 */
class BatchFrameGoldenBytesTest {
  private static final long REQUEST_ID = 0x8182838485868788L;
  private static final long SESSION = 0x1112131415161718L;
  private static final int COLOR = 0x31323334;

  @Test
  void appendBatchMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.AppendBatch(
            REQUEST_ID,
            SESSION,
            COLOR,
            0x41424344,
            List.of(
                new BatchedRecord(0x2122232425262728L, Bytes.of("ab")),
                new BatchedRecord(0xa1a2a3a4a5a6a7a8L, Bytes.of("c")))),
        "0000003b f10c 01 3c 8182838485868788 1112131415161718 31323334 41424344 00000002"
            + " 2122232425262728 00000002 a1a2a3a4a5a6a7a8 00000001 6162 63");
  }

  @Test
  void appendBatchAckMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.AppendBatchAck(
            REQUEST_ID,
            SESSION,
            COLOR,
            0x51525354,
            List.of(
                new BatchOutcome(0x2122232425262728L, 0x6162636465666768L, 0),
                new BatchOutcome(0xa1a2a3a4a5a6a7a8L, 0, 4))),
        "00000048 f10c 01 3d 8182838485868788 1112131415161718 31323334 51525354 00000002"
            + " 2122232425262728 6162636465666768 0000 0000"
            + " a1a2a3a4a5a6a7a8 0000000000000000 0004 0000");
  }

  @Test
  void shouldRefuseEmptyBatch() {
    assertRefused(
        "00000020 f10c 01 3c 0000000000000001 1112131415161718 31323334 41424344 00000000",
        "APPEND_BATCH count 0 outside [1, 65536]");
  }

  @Test
  void shouldRefuseBatchWhosePayloadLengthsDoNotFillTheBody() {
    assertRefused(
        "0000002d f10c 01 3c 0000000000000001 1112131415161718 31323334 41424344 00000001"
            + " 2122232425262728 00000002 61",
        "APPEND_BATCH payload lengths sum to 2 but the body has 1 payload bytes");
  }

  @Test
  void shouldRefuseAckEntryWithBothSnAndErrorCode() {
    assertRefused(
        "00000034 f10c 01 3d 0000000000000001 1112131415161718 31323334 51525354 00000001"
            + " 2122232425262728 0000000000000005 0004 0000",
        "APPEND_BATCH_ACK entry 0 has SN 5 and error code 4");
  }

  private static void assertRefused(String hex, String message) {
    ByteBuf frame = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining(message);
    } finally {
      frame.release();
    }
  }
}
