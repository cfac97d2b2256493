package io.flexlog.core.protocol;

import static io.flexlog.core.protocol.FrameGoldenBytesTest.assertGolden;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.WireMessage.TokenPair;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of WELCOME (type 24) and the replica sync frames (types 50-51, 53), written out by
 * hand from the documented layouts. Same conventions as {@link FrameGoldenBytesTest}: distinct byte
 * patterns per field, spaces separate fields.
 */
class SyncFrameGoldenBytesTest {
  private static final long REQUEST_ID = 0x8182838485868788L;

  @Test
  void welcomeMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.Welcome(0x11121314, 0x21222324),
        "00000014 f10c 01 18 0000000000000000 11121314 21222324");
  }

  @Test
  void tokenSyncMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.TokenSync(
            REQUEST_ID,
            0x11121314,
            0x21222324,
            0x31323334,
            0x41424344,
            List.of(new TokenPair(0x5152535455565758L, 0x6162636465666768L))),
        "00000030 f10c 01 32 8182838485868788 11121314 21222324 31323334 41424344 00000001"
            + " 5152535455565758 6162636465666768");
  }

  @Test
  void tokenSyncResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.TokenSyncResponse(
            REQUEST_ID, 0x11121314, 0x21222324, List.of(0x3132333435363738L, 0L)),
        "00000028 f10c 01 33 8182838485868788 11121314 21222324 00000002 3132333435363738"
            + " 0000000000000000");
  }

  @Test
  void syncEntriesMatchesDocumentedLayout() {
    ByteBuf frame =
        SyncEntriesDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT,
            REQUEST_ID,
            0x11121314,
            0x21222324,
            0x31323334,
            SyncEntriesDescriptor.SETTLED | SyncEntriesDescriptor.MORE,
            0x4142434445464748L,
            0x5152535455565758L,
            1,
            2);
    SyncEntriesDescriptor.writeEntry(frame, 0x6162636465666768L, 0x71727374757677L, 0x0102L, 2);
    frame.writeShort(0xa1a2);
    try {
      Frames.validate(frame);
      assertThat(ByteBufUtil.hexDump(frame))
          .isEqualTo(
              ("0000004e f10c 01 35 8182838485868788 11121314 21222324 31323334 00000003"
                      + " 4142434445464748 5152535455565758 00000001"
                      + " 6162636465666768 0071727374757677 0000000000000102 00000002 a1a2")
                  .replace(" ", ""));
      assertThat(SyncEntriesDescriptor.trimPoint(frame)).isEqualTo(0x5152535455565758L);
      assertThat(SyncEntriesDescriptor.coveredSn(frame)).isEqualTo(0x4142434445464748L);
      assertThat(SyncEntriesDescriptor.sn(frame, 0)).isEqualTo(0x6162636465666768L);
      assertThat(SyncEntriesDescriptor.payloadLength(frame, 0)).isEqualTo(2);
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldRefuseSyncEntriesCutBeforeItsRecordCount() {
    ByteBuf frame =
        SyncEntriesDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, REQUEST_ID, 1, 2, 3, 0, 4, 5, 0, 0);
    frame.setInt(0, frame.getInt(0) - 4);
    frame.writerIndex(frame.writerIndex() - 4);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("SYNC_ENTRIES");
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldRefuseTokenSyncWhoseCountExceedsItsBody() {
    ByteBuf frame =
        new WireMessage.TokenSync(REQUEST_ID, 1, 2, 3, 4, List.of(new TokenPair(5, 6)))
            .encode(UnpooledByteBufAllocator.DEFAULT);
    frame.setInt(FrameDescriptor.body(frame) + TokenSyncDescriptor.COUNT_OFFSET, 2);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("TOKEN_SYNC");
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldRefuseWelcomeOfTheWrongLength() {
    ByteBuf frame = new WireMessage.Welcome(1, 2).encode(UnpooledByteBufAllocator.DEFAULT);
    frame.setInt(0, frame.getInt(0) - 4);
    frame.writerIndex(frame.writerIndex() - 4);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("WELCOME body must be 8 bytes, got 4");
    } finally {
      frame.release();
    }
  }
}
