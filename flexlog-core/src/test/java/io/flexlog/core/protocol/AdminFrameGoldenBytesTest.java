package io.flexlog.core.protocol;

import static io.flexlog.core.protocol.FrameGoldenBytesTest.assertGolden;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.TierUsage;
import io.flexlog.core.model.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of the admin frames (types 90-97), written out by hand from the documented layouts
 * (docs/protocol.md#admin-frames). Same conventions as {@link FrameGoldenBytesTest}.
 */
class AdminFrameGoldenBytesTest {
  private static final long REQUEST_ID = 0x8182838485868788L;
  private static final String HEADER_ID = "8182838485868788";

  @Test
  void createColorMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.CreateColor(
            REQUEST_ID,
            new CreateColorDescriptor.Request(
                "orders", "global", 2, 3, CreateColorDescriptor.PARENTS_SEQUENCER)),
        "00000028 f10c 01 5a "
            + HEADER_ID
            // shards, replication factor, sequencer node (-1: the parent's)
            + " 00000002 00000003 ffffffff"
            // name, parent: u16 length + UTF-8
            + " 0006 6f7264657273 0006 676c6f62616c");
  }

  @Test
  void createColorCarriesRetentionInAnOptionalTail() {
    assertGolden(
        new WireMessage.CreateColor(
            REQUEST_ID,
            new CreateColorDescriptor.Request(
                "orders", "global", 2, 3, CreateColorDescriptor.PARENTS_SEQUENCER, 7_200_000, -1)),
        "00000038 f10c 01 5a "
            + HEADER_ID
            + " 00000002 00000003 ffffffff 0006 6f7264657273 0006 676c6f62616c"
            // retention.ms 7200000, retention.bytes -1
            + " 00000000006ddd00 ffffffffffffffff");
  }

  @Test
  void createColorResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.CreateColorResponse(
            REQUEST_ID,
            new CreateColorDescriptor.Response(
                true,
                7,
                List.of(5),
                new ColorEntry(3, "eu", "global", 1, 3, List.of(10, 11), 60_000, 1 << 20))),
        "00000051 f10c 01 5b "
            + HEADER_ID
            // created, topology version, unacknowledged nodes
            + " 01 0000000000000007 00000001 00000005"
            // color entry: id, sequencer node, replication factor, shards, name, parent
            + " 00000003 00000001 00000003 00000002 0000000a 0000000b 0002 6575"
            + " 0006 676c6f62616c"
            // retention.ms, retention.bytes
            + " 000000000000ea60 0000000000100000");
  }

  @Test
  void describeColorsMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.DescribeColors(REQUEST_ID, "eu"),
        "00000010 f10c 01 5c " + HEADER_ID + " 0002 6575");
    assertGolden(
        new WireMessage.DescribeColors(REQUEST_ID, ""),
        "0000000e f10c 01 5c " + HEADER_ID + " 0000");
  }

  @Test
  void describeColorsResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.DescribeColorsResponse(
            REQUEST_ID,
            new DescribeColorsDescriptor.Response(
                9, List.of(new ColorEntry(0, "global", "", 1, 3, List.of(10), -1, -1)))),
        "00000046 f10c 01 5d "
            + HEADER_ID
            // topology version, color count
            + " 0000000000000009 00000001"
            // the root color: no parent name, keeps everything
            + " 00000000 00000001 00000003 00000001 0000000a 0006 676c6f62616c 0000"
            + " ffffffffffffffff ffffffffffffffff");
  }

  @Test
  void alterColorMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.AlterColor(
            REQUEST_ID,
            new AlterColorDescriptor.Request(
                "orders", OptionalLong.of(7_200_000), OptionalLong.empty())),
        "00000025 f10c 01 60 "
            + HEADER_ID
            // name, given (bit 0: retention.ms), retention.ms, retention.bytes (not given: -1)
            + " 0006 6f7264657273 01 00000000006ddd00 ffffffffffffffff");
    assertGolden(
        new WireMessage.AlterColor(
            REQUEST_ID,
            new AlterColorDescriptor.Request("eu", OptionalLong.of(-1), OptionalLong.of(4096))),
        "00000021 f10c 01 60 " + HEADER_ID + " 0002 6575 03 ffffffffffffffff 0000000000001000");
  }

  @Test
  void alterColorResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.AlterColorResponse(
            REQUEST_ID,
            new AlterColorDescriptor.Response(
                false,
                8,
                List.of(),
                new ColorEntry(3, "eu", "global", 1, 3, List.of(10), -1, 4096))),
        "00000049 f10c 01 61 "
            + HEADER_ID
            // changed, topology version, no unacknowledged node
            + " 00 0000000000000008 00000000"
            + " 00000003 00000001 00000003 00000001 0000000a 0002 6575 0006 676c6f62616c"
            + " ffffffffffffffff 0000000000001000");
  }

  @Test
  void describeClusterHasEmptyBody() {
    assertGolden(new WireMessage.DescribeCluster(REQUEST_ID), "0000000c f10c 01 5e " + HEADER_ID);
  }

  @Test
  void describeClusterResponseIsMetadataResponseThenAdminServices() {
    Topology topology =
        new Topology(
            42,
            List.of(
                new NodeAddress(1, NodeAddress.Kind.SEQUENCER, "s1", 7000),
                new NodeAddress(2, NodeAddress.Kind.REPLICA, "r1", 7001)),
            List.of(new Color(0, "global", Color.NO_PARENT, 1)),
            List.of(new Shard(10, 0, List.of(2))));
    assertGolden(
        new WireMessage.DescribeClusterResponse(
            REQUEST_ID,
            new DescribeClusterDescriptor.Response(
                topology,
                1 << 20,
                List.of(new DescribeClusterDescriptor.AdminService(1, "s1", 7090)))),
        "00000072 f10c 01 5f "
            + HEADER_ID
            + " 000000000000002a 00100000"
            + " 00000002 00000001 00 0002 7331 00001b58 00000002 01 0002 7231 00001b59"
            + " 00000001 00000000 ffffffff 00000001 0006 676c6f62616c"
            + " 00000001 0000000a 00000000 00000001 00000002"
            // admin services: node id, host, port
            + " 00000001 00000001 0002 7331 00001bb2");
  }

  @Test
  void replicaStatusMatchesDocumentedLayout() {
    assertGolden(new WireMessage.ReplicaStatus(REQUEST_ID), "0000000c f10c 01 62 " + HEADER_ID);
  }

  @Test
  void replicaStatusResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.ReplicaStatusResponse(
            REQUEST_ID,
            new ReplicaDescription(
                3,
                new TierUsage(2, 0x40, 5, 0x1000, 0x100000, 7, 0x2000, 1),
                List.of(
                    new ReplicaDescription.ColorState(
                        0, 0x100000002L, 0x100000009L, 7, new Retention(60_000, -1))))),
        "0000007c f10c 01 63 "
            + HEADER_ID
            // node id
            + " 00000003"
            // cache records, bytes; PM records, bytes, capacity; SSD records, bytes, segments
            + " 0000000000000002 0000000000000040"
            + " 0000000000000005 0000000000001000 0000000000100000"
            + " 0000000000000007 0000000000002000 00000001"
            // colors: count; id, trim point, tail, records, retention ms, retention bytes
            + " 00000001 00000000 0000000100000002 0000000100000009 0000000000000007"
            + " 000000000000ea60 ffffffffffffffff");
  }

  @Test
  void shouldRefuseMalformedReplicaStatusFrames() {
    assertRefused("62", "00", "REPLICA_STATUS body must be 0 bytes, got 1");
    String tiers =
        "00000003 0000000000000002 0000000000000040 0000000000000005 0000000000001000"
            + " 0000000000100000 0000000000000007 0000000000002000 00000001";
    assertRefused("63", tiers, "REPLICA_STATUS_RESPONSE is truncated");
    assertRefused("63", tiers + " 00000001", "REPLICA_STATUS_RESPONSE: color count 1 does not fit");
    assertRefused("63", tiers + " 00000000 00", "REPLICA_STATUS_RESPONSE has 1 trailing");
    assertRefused(
        "63",
        "00000003 ffffffffffffffff" + tiers.substring(25),
        "REPLICA_STATUS_RESPONSE: tier usage counts must be >= 0");
    assertRefused(
        "63",
        tiers
            + " 00000001 00000000 0000000000000000 0000000000000000 0000000000000000"
            + " 0000000000000000 ffffffffffffffff",
        "REPLICA_STATUS_RESPONSE: retention.ms must be -1 (keep everything) or > 0, got 0");
  }

  @Test
  void shouldRefuseTruncatedAndTrailingBodies() {
    assertRefused("5a", "00000002 00000003 ffffffff 0006 6f7264", "CREATE_COLOR is truncated");
    assertRefused("5a", "00000002 00000003 ffffffff 0000 0000 00", "CREATE_COLOR is truncated");
    assertRefused(
        "5a",
        "00000002 00000003 ffffffff 0000 0000 0000000000000001 0000000000000002 00",
        "CREATE_COLOR has 1 trailing");
    assertRefused("60", "0002 6575 01 0000000000000001", "ALTER_COLOR is truncated");
    assertRefused(
        "60", "0002 6575 01 0000000000000001 ffffffffffffffff 00", "ALTER_COLOR has 1 trailing");
    assertRefused("5c", "", "DESCRIBE_COLORS is truncated");
    assertRefused("5e", "00", "DESCRIBE_CLUSTER body must be 0 bytes, got 1");
  }

  @Test
  void shouldRefuseBadFlagsAndCountsThatDoNotFit() {
    assertRefused(
        "5b",
        "02 0000000000000007 00000000",
        "CREATE_COLOR_RESPONSE: created flag must be 0 or 1, got 2");
    assertRefused(
        "5b",
        "01 0000000000000007 7fffffff",
        "CREATE_COLOR_RESPONSE: unacknowledged node count 2147483647 does not fit");
    assertRefused(
        "5d", "0000000000000009 ffffffff", "DESCRIBE_COLORS_RESPONSE: color count -1 does not fit");
    assertRefused(
        "61",
        "02 0000000000000007 00000000",
        "ALTER_COLOR_RESPONSE: changed flag must be 0 or 1, got 2");
    assertRefused(
        "60",
        "0002 6575 04 ffffffffffffffff ffffffffffffffff",
        "ALTER_COLOR: unknown bits in the given-settings byte 0x4");
    assertRefused(
        "60",
        "0002 6575 01 0000000000000001 0000000000000005",
        "ALTER_COLOR: retention.bytes is not given but holds 5 instead of -1");
    assertRefused(
        "5d",
        "0000000000000009 00000001 00000000 00000001 00000003 00001000 0000000000000000"
            + " 0000000000000000 0000000000000000",
        "DESCRIBE_COLORS_RESPONSE: shard count 4096 does not fit");
  }

  @Test
  void shouldRefuseAnInconsistentClusterTopology() {
    // A shard on node 9, which the topology does not list.
    assertRefused(
        "5f",
        "000000000000002a 00100000 00000001 00000001 00 0002 7331 00001b58"
            + " 00000001 00000000 ffffffff 00000001 0006 676c6f62616c"
            + " 00000001 0000000a 00000000 00000001 00000009 00000000",
        "DESCRIBE_CLUSTER_RESPONSE is inconsistent");
  }

  @Test
  void shouldRefuseStringsLongerThanTheLengthField() {
    String tooLong = "x".repeat(0x10000);
    assertThatThrownBy(
            () ->
                DescribeColorsDescriptor.encodeRequest(
                    UnpooledByteBufAllocator.DEFAULT, REQUEST_ID, tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65536 UTF-8 bytes");
  }

  @Test
  void shouldClassifyOnlyTheRequestsAsAdminRequests() {
    assertThat(MessageType.isAdminRequest(MessageType.CREATE_COLOR)).isTrue();
    assertThat(MessageType.isAdminRequest(MessageType.DESCRIBE_COLORS)).isTrue();
    assertThat(MessageType.isAdminRequest(MessageType.DESCRIBE_CLUSTER)).isTrue();
    assertThat(MessageType.isAdminRequest(MessageType.ALTER_COLOR)).isTrue();
    assertThat(MessageType.isAdminRequest(MessageType.ALTER_COLOR_RESPONSE)).isFalse();
    assertThat(MessageType.isAdminRequest(MessageType.CREATE_COLOR_RESPONSE)).isFalse();
    assertThat(MessageType.isAdminRequest(MessageType.METADATA_REQUEST)).isFalse();
  }

  private static void assertRefused(String type, String bodyHex, String message) {
    byte[] body = ByteBufUtil.decodeHexDump(bodyHex.replace(" ", ""));
    ByteBuf frame = Unpooled.buffer();
    frame.writeInt(12 + body.length);
    frame.writeShort(0xF10C);
    frame.writeByte(1);
    frame.writeByte(Integer.parseInt(type, 16));
    frame.writeLong(REQUEST_ID);
    frame.writeBytes(body);
    try {
      assertThatThrownBy(() -> Frames.validate(frame))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining(message);
    } finally {
      frame.release();
    }
  }
}
