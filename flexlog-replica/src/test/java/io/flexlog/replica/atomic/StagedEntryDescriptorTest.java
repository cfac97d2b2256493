package io.flexlog.replica.atomic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.model.Sn;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** Golden bytes of the staging entries that END, DONE and ABORTED markers write. */
class StagedEntryDescriptorTest {
  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  private static ByteBuf marker(byte kind, int count, int bodyLength) {
    return StagedEntryDescriptor.encodeHeader(
        ALLOC, kind, 0x0102030405060708L, 0x1112131415161718L, 0, count, 0, 0, bodyLength, 0);
  }

  @Test
  void shouldEncodeAnAbortedMarkerToItsGoldenBytes() {
    ByteBuf entry = marker(StagedEntryDescriptor.ABORTED, 3, 0);

    assertThat(ByteBufUtil.hexDump(entry))
        .isEqualTo(
            "a70c0104"
                + "0102030405060708"
                + "1112131415161718"
                + "00000000"
                + "00000003"
                + "00000000"
                + "00000000"
                + "00000000");
    StagedEntryDescriptor.validate(entry);
    assertThat(StagedEntryDescriptor.kind(entry)).isEqualTo(StagedEntryDescriptor.ABORTED);
    assertThat(StagedEntryDescriptor.memberCount(entry)).isEqualTo(3);
    entry.release();
  }

  @Test
  void shouldEncodeADoneMarkerWithAFailedMemberAsMinusItsErrorCode() {
    ByteBuf header = marker(StagedEntryDescriptor.DONE, 2, 16);
    ByteBuf body = Unpooled.buffer(16);
    body.writeLong(Sn.of(1, 5));
    body.writeLong(-ErrorCode.RECORD_TOO_LARGE.code());
    ByteBuf entry = Unpooled.wrappedBuffer(header, body);

    assertThat(ByteBufUtil.hexDump(entry))
        .isEqualTo(
            "a70c0103"
                + "0102030405060708"
                + "1112131415161718"
                + "00000000"
                + "00000002"
                + "00000000"
                + "00000000"
                + "00000010"
                + "0000000100000005"
                + "fffffffffffffffd");
    StagedEntryDescriptor.validate(entry);
    assertThat(StagedEntryDescriptor.doneSn(entry, 0)).isEqualTo(Sn.of(1, 5));
    assertThat(StagedEntryDescriptor.doneSn(entry, 1)).isEqualTo(-3);
    entry.release();
  }

  @Test
  void shouldRejectAnAbortedMarkerWithABody() {
    ByteBuf entry =
        Unpooled.wrappedBuffer(
            marker(StagedEntryDescriptor.ABORTED, 1, 4), Unpooled.wrappedBuffer(new byte[4]));

    assertThatThrownBy(() -> StagedEntryDescriptor.validate(entry))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("ABORTED");
    entry.release();
  }

  @Test
  void shouldRejectAnUnknownKind() {
    ByteBuf entry = marker((byte) 5, 1, 0);

    assertThatThrownBy(() -> StagedEntryDescriptor.validate(entry))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("unknown kind 5");
    entry.release();
  }
}
