package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Token;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The topologies and steps the join-mark tests of a sequencer node share ({@link
 * SequencerTopologyUpdateTest}, {@link SequencerLostJoinMarkTest}): sequencer nodes 0 and 1,
 * replicas 10 and 11; V1 has global (on node 0) with shard 0, V2 adds color green under it with
 * shard 5.
 */
final class JoinMarkFixture {
  static final int GREEN = 3;
  static final int NEW_SHARD = 5;

  static final List<NodeAddress> NODES =
      List.of(
          new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 0),
          new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 0),
          new NodeAddress(10, Kind.REPLICA, "127.0.0.1", 0),
          new NodeAddress(11, Kind.REPLICA, "127.0.0.1", 0));
  static final Color GLOBAL = new Color(Color.GLOBAL_ID, "global", Color.NO_PARENT, 0);

  static final Topology V1 =
      new Topology(1, NODES, List.of(GLOBAL), List.of(new Shard(0, GLOBAL.id(), List.of(10, 11))));

  /** V1 plus color green under global on this node, with one new shard on replica 11. */
  static final Topology V2 =
      new Topology(
          2,
          NODES,
          List.of(GLOBAL, new Color(GREEN, "green", GLOBAL.id(), 0)),
          List.of(
              new Shard(0, GLOBAL.id(), List.of(10, 11)),
              new Shard(NEW_SHARD, GREEN, List.of(11))));

  private JoinMarkFixture() {}

  /** V2's colors and shards with both roles led by {@code nodeId} in {@code roleEpoch}. */
  static Topology v2LedBy(long version, int nodeId, int roleEpoch) {
    return new Topology(
        version,
        NODES,
        List.of(
            GLOBAL.withRole(nodeId, roleEpoch),
            new Color(GREEN, "green", GLOBAL.id(), 0).withRole(nodeId, roleEpoch)),
        V2.shards());
  }

  /**
   * Replica 10 of shard 0 ({@code old}, a new connection to {@code node}) has one append ordered;
   * then the node applies V2 (a new shard joins) and the replica gets the join mark just past that
   * SN; then the node stops.
   *
   * @return the SN of the ordered append
   */
  static long orderOneAndJoinV2(RawFrameClient old, SequencerNode node) throws Exception {
    old.hello(10, 0);
    old.next(MessageType.WATERMARK); // catch-up
    old.orderRequest(GLOBAL.id(), 0, 10, new Token(8, 1));
    long last = old.awaitOrdered(GLOBAL.id(), 1).get(0).sn();
    node.updateTopology(V2);
    assertThat(TopologyMarkDescriptor.markSn(old.next(MessageType.TOPOLOGY_MARK)))
        .isEqualTo(last + 1);
    node.close();
    return last;
  }

  /**
   * A metadata quorum's join marks in memory: a save merges into {@code quorum} (is committed) when
   * {@code committed} completes, never before; it holds every leader's marks ({@link
   * JoinMarkStore#complete}).
   */
  static JoinMarkStore quorumStore(
      Map<Integer, List<JoinMarkStore.Mark>> quorum, CompletableFuture<Void> committed) {
    return new JoinMarkStore() {
      @Override
      public List<Mark> load(int colorId) {
        return quorum.getOrDefault(colorId, List.of());
      }

      @Override
      public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
        return committed.thenRun(() -> quorum.merge(colorId, marks, JoinMarkStore::merge));
      }

      @Override
      public boolean complete() {
        return true;
      }
    };
  }
}
