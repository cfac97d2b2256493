package io.flexlog.core.protocol;

import static io.flexlog.core.protocol.FrameGoldenBytesTest.assertGolden;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of the trim frames (types 40-41), written out by hand from the documented layouts.
 * Same conventions as {@link FrameGoldenBytesTest}: distinct byte patterns per field, spaces
 * separate fields.
 */
class TrimFrameGoldenBytesTest {
  private static final long REQUEST_ID = 0x8182838485868788L;
  private static final int COLOR = 0x31323334;

  @Test
  void trimMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.Trim(REQUEST_ID, COLOR, 0x4142434445464748L),
        "00000018 f10c 01 28 8182838485868788 31323334 4142434445464748");
  }

  @Test
  void trimResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.TrimResponse(REQUEST_ID, COLOR, 0x4142434445464748L, 0x5152535455565758L),
        "00000020 f10c 01 29 8182838485868788 31323334 4142434445464748 5152535455565758");
  }

  @Test
  void shouldRefuseTrimWithTruncatedBody() {
    ByteBuf frame =
        new WireMessage.Trim(REQUEST_ID, COLOR, 5).encode(UnpooledByteBufAllocator.DEFAULT);
    frame.setInt(0, frame.getInt(0) - 4);
    frame.writerIndex(frame.writerIndex() - 4);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("TRIM body must be 12 bytes, got 8");
    } finally {
      frame.release();
    }
  }
}
