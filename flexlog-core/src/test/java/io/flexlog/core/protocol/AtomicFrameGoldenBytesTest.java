package io.flexlog.core.protocol;

import static io.flexlog.core.protocol.FrameGoldenBytesTest.assertGolden;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.WireMessage.Bytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of the atomic-append frames (types 30-33), written out by hand from the documented
 * layouts, and the validators' refusal of values those layouts forbid. Same conventions as {@link
 * FrameGoldenBytesTest}: distinct byte patterns per field, spaces separate fields.
 */
class AtomicFrameGoldenBytesTest {
  private static final long REQUEST_ID = 0x8182838485868788L;
  private static final long GROUP_HIGH = 0x1112131415161718L;
  private static final long GROUP_LOW = 0x2122232425262728L;
  private static final int BROKER = 0x41424344;
  private static final int COLOR = 0x31323334;
  private static final int SHARD = 0x35363738;
  private static final long SESSION = 0x9192939495969798L;
  private static final long SEQUENCE = 0xa1a2a3a4a5a6a7a8L;
  private static final int REPLICA = 0x51525354;

  @Test
  void stageMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.Stage(
            REQUEST_ID,
            GROUP_HIGH,
            GROUP_LOW,
            2,
            3,
            BROKER,
            COLOR,
            SHARD,
            SESSION,
            SEQUENCE,
            Bytes.of("hi")),
        "00000046 f10c 01 1e 8182838485868788"
            + " 1112131415161718 2122232425262728 00000002 00000003 41424344 31323334 35363738"
            + " 9192939495969798 a1a2a3a4a5a6a7a8 00000002 6869");
  }

  @Test
  void stageAckMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.StageAck(REQUEST_ID, GROUP_HIGH, GROUP_LOW, 2, REPLICA),
        "00000024 f10c 01 1f 8182838485868788"
            + " 1112131415161718 2122232425262728 00000002 51525354");
  }

  @Test
  void commitGroupMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.CommitGroup(REQUEST_ID, GROUP_HIGH, GROUP_LOW, BROKER, 3),
        "00000024 f10c 01 20 8182838485868788"
            + " 1112131415161718 2122232425262728 41424344 00000003");
  }

  @Test
  void groupResultListsSnsInMemberOrder() {
    assertGolden(
        new WireMessage.GroupResult(
            REQUEST_ID, GROUP_HIGH, GROUP_LOW, REPLICA, List.of(0x6162636465666768L, 7L)),
        "00000034 f10c 01 21 8182838485868788"
            + " 1112131415161718 2122232425262728 51525354 00000002"
            + " 6162636465666768 0000000000000007");
  }

  @Test
  void shouldRefuseStageWithMemberIndexOutsideItsGroup() {
    ByteBuf frame =
        new WireMessage.Stage(
                REQUEST_ID, 1, 2, 3, 3, BROKER, COLOR, SHARD, SESSION, SEQUENCE, Bytes.of("x"))
            .encode(UnpooledByteBufAllocator.DEFAULT);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("member index 3 outside a group of 3 members");
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldRefuseCommitGroupWithoutMembers() {
    ByteBuf frame =
        new WireMessage.CommitGroup(REQUEST_ID, 1, 2, BROKER, 0)
            .encode(UnpooledByteBufAllocator.DEFAULT);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("member count must be >= 1");
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldRefuseGroupResultWhoseCountDisagreesWithItsLength() {
    ByteBuf frame =
        new WireMessage.GroupResult(REQUEST_ID, 1, 2, REPLICA, List.of(5L))
            .encode(UnpooledByteBufAllocator.DEFAULT);
    frame.setInt(FrameDescriptor.BODY_OFFSET + GroupResultDescriptor.COUNT_OFFSET, 2);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("GROUP_RESULT count 2");
      assertThat(ByteBufUtil.hexDump(frame)).isNotEmpty();
    } finally {
      frame.release();
    }
  }
}
