package io.flexlog.core.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.admin.v1.NodeKind;
import io.flexlog.core.error.ColorExistsException;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.NotEnoughNodesException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyProtosTest {
  private static final Topology TREE =
      new Topology(
          7,
          List.of(
              new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 7070),
              new NodeAddress(1, Kind.SEQUENCER, "10.0.0.2", 7071),
              new NodeAddress(3, Kind.REPLICA, "127.0.0.1", 7073),
              new NodeAddress(4, Kind.REPLICA, "127.0.0.1", 7074)),
          List.of(
              new Color(0, "global", Color.NO_PARENT, 0),
              new Color(1, "left", 0, 1),
              new Color(5, "left.hot", 1, 1)),
          List.of(new Shard(0, 1, List.of(3, 4)), new Shard(2, 5, List.of(4, 3))));

  @Test
  void shouldRoundTripATopologyThroughItsMessageAndBytes() throws Exception {
    io.flexlog.admin.v1.Topology message = TopologyProtos.toProto(TREE);

    assertThat(message.getNodes(1).getKind()).isEqualTo(NodeKind.NODE_KIND_SEQUENCER);
    assertThat(message.getColors(0).getParentId()).isEqualTo(-1);
    assertThat(TopologyProtos.fromProto(message)).isEqualTo(TREE);
    assertThat(
            TopologyProtos.fromProto(io.flexlog.admin.v1.Topology.parseFrom(message.toByteArray())))
        .isEqualTo(TREE);
  }

  @Test
  void shouldCarryRetentionAndReadItsAbsenceAsKeepEverything() throws Exception {
    Topology withRetention =
        new Topology(
            8,
            List.copyOf(TREE.nodes().values()),
            List.of(
                new Color(0, "global", Color.NO_PARENT, 0),
                new Color(1, "left", 0, 1, 0, new Retention(60_000, Retention.KEEP)),
                new Color(5, "left.hot", 1, 1, 0, new Retention(Retention.KEEP, 1L << 30))),
            TREE.shards());

    io.flexlog.admin.v1.Topology message = TopologyProtos.toProto(withRetention);

    assertThat(message.getColors(0).hasRetentionMs()).isFalse(); // encoded as before retention
    assertThat(message.getColors(1).getRetentionMs()).isEqualTo(60_000);
    assertThat(message.getColors(1).hasRetentionBytes()).isFalse();
    assertThat(
            TopologyProtos.fromProto(io.flexlog.admin.v1.Topology.parseFrom(message.toByteArray())))
        .isEqualTo(withRetention);
    assertThat(
            TopologyProtos.fromProto(TopologyProtos.toProto(TREE))
                .color("left")
                .orElseThrow()
                .retention())
        .isEqualTo(Retention.KEEP_ALL);
    ColorInfo info = TopologyProtos.colorInfo(withRetention, withRetention.color(5).orElseThrow());
    assertThat(info.getRetentionMs()).isEqualTo(Retention.KEEP);
    assertThat(info.getRetentionBytes()).isEqualTo(1L << 30);

    io.flexlog.admin.v1.Topology negative =
        message.toBuilder()
            .setColors(1, message.getColors(1).toBuilder().setRetentionMs(-5))
            .build();
    assertThatThrownBy(() -> TopologyProtos.fromProto(negative))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("retention.ms must be -1 (keep everything) or > 0, got -5");
  }

  @Test
  void shouldRejectAnInconsistentMessageAsInvalidArgument() {
    io.flexlog.admin.v1.Topology unknownKind =
        TopologyProtos.toProto(TREE).toBuilder()
            .setNodes(0, TopologyProtos.toProto(TREE).getNodes(0).toBuilder().setKindValue(0))
            .build();
    io.flexlog.admin.v1.Topology cycle =
        TopologyProtos.toProto(TREE).toBuilder()
            .setColors(0, TopologyProtos.toProto(TREE).getColors(0).toBuilder().setParentId(5))
            .build();

    assertThatThrownBy(() -> TopologyProtos.fromProto(unknownKind))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("node 0 has unknown kind 0");
    assertThatThrownBy(() -> TopologyProtos.fromProto(cycle))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("cycle");
  }

  @Test
  void shouldDescribeAColorWithItsParentOwnShardsAndReplication() {
    ColorInfo left = TopologyProtos.colorInfo(TREE, TREE.color("left").orElseThrow());
    ColorInfo global = TopologyProtos.colorInfo(TREE, TREE.color("global").orElseThrow());

    assertThat(left.getParent()).isEqualTo("global");
    assertThat(left.getShardIdsList()).containsExactly(0);
    assertThat(left.getReplicationFactor()).isEqualTo(2);
    assertThat(left.getSequencerNodeId()).isEqualTo(1);
    assertThat(global.getParent()).isEmpty();
    assertThat(global.getShardIdsList()).isEmpty();
    assertThat(global.getReplicationFactor()).isZero();
  }

  @Test
  void shouldCarryTheFlexLogCodeThroughAGrpcStatus() {
    StatusRuntimeException exists =
        AdminErrors.toStatus(new ColorExistsException("color 'a' already exists"));
    StatusRuntimeException nodes = AdminErrors.toStatus(new NotEnoughNodesException("needs 3"));

    assertThat(exists.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
    assertThat(exists.getTrailers().get(AdminErrors.CODE_KEY)).isEqualTo("COLOR_EXISTS");
    assertThat(AdminErrors.fromStatus(exists, "x:1"))
        .isInstanceOf(ColorExistsException.class)
        .hasMessage("color 'a' already exists");
    assertThat(nodes.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(AdminErrors.fromStatus(nodes, "x:1")).isInstanceOf(NotEnoughNodesException.class);
  }

  @Test
  void shouldDescribeAStatusWithoutFlexLogCodeByItsTarget() {
    FlexLogException unavailable =
        AdminErrors.fromStatus(
            Status.UNAVAILABLE.withDescription("connection refused").asRuntimeException(),
            "127.0.0.1:7090");
    Metadata unknown = new Metadata();
    unknown.put(AdminErrors.CODE_KEY, "FROM_THE_FUTURE");
    FlexLogException future =
        AdminErrors.fromStatus(Status.INTERNAL.asRuntimeException(unknown), "x:1");

    assertThat(unavailable)
        .hasMessage("admin service at 127.0.0.1:7090 is unreachable: connection refused");
    assertThat(future.code()).isEqualTo(ErrorCode.INTERNAL);
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(AdminErrors.statusCode(code)).isNotNull();
    }
  }
}
