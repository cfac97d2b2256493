package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingTest {
  private static Topology topology(List<Color> colors, List<Shard> shards) {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      nodes.add(new NodeAddress(n, Kind.SEQUENCER, "127.0.0.1", 7000 + n));
    }
    nodes.add(new NodeAddress(100, Kind.REPLICA, "127.0.0.1", 7100));
    return new Topology(1, nodes, colors, shards);
  }

  private static Shard shard(int id, int color) {
    return new Shard(id, color, List.of(100));
  }

  @Test
  void shouldForwardALeafsAncestorToTheNodeOfItsParentColor() {
    Topology t =
        topology(
            List.of(new Color(0, "global", -1, 0), new Color(1, "left", 0, 1)),
            List.of(shard(10, 1), shard(11, 1), shard(12, 0)));
    Routing leaf = new Routing(t, 1);
    Routing root = new Routing(t, 0);

    assertThat(leaf.routes()).hasSize(1);
    Routing.Route route = leaf.route(1, 0);
    assertThat(route.colorId()).isZero();
    assertThat(route.exitColorId()).isEqualTo(1);
    assertThat(route.parentNodeId()).isZero();
    assertThat(route.shardIds()).containsExactly(10, 11);
    assertThat(leaf.parentNodes()).containsExactly(0);
    assertThat(leaf.route(1, 1)).as("hosted: ordered here").isNull();
    assertThat(root.routes()).isEmpty();
    assertThat(root.edgesTo(1)).containsExactly(new Routing.Edge(1, 1));
    assertThat(root.edgesUnder(0)).containsExactly(new Routing.Edge(1, 1));
    assertThat(root.isEdge(1, 1)).isTrue();
    assertThat(root.isEdge(1, 2)).isFalse();
  }

  @Test
  void shouldClimbTheColorsHostedOnOneNodeInMemory() {
    Topology t =
        topology(
            List.of(
                new Color(0, "global", -1, 0),
                new Color(1, "a", 0, 1),
                new Color(2, "a1", 1, 1),
                new Color(3, "a2", 1, 1)),
            List.of(shard(10, 2), shard(11, 3), shard(12, 1)));
    Routing node = new Routing(t, 1);

    assertThat(node.routes()).hasSize(1);
    assertThat(node.route(2, 0)).isSameAs(node.route(3, 0)).isSameAs(node.route(1, 0));
    assertThat(node.route(2, 0).exitColorId()).isEqualTo(1);
    assertThat(node.route(2, 0).shardIds()).containsExactlyInAnyOrder(10, 11, 12);
    assertThat(node.route(2, 1)).as("a is hosted here").isNull();
  }

  @Test
  void shouldRouteAPathThatLeavesANodeAndComesBack() {
    // global on node 0, a on node 1, b (under a) on node 0, c (under b) on node 1.
    Topology t =
        topology(
            List.of(
                new Color(0, "global", -1, 0),
                new Color(1, "a", 0, 1),
                new Color(2, "b", 1, 0),
                new Color(3, "c", 2, 1)),
            List.of(shard(10, 3), shard(11, 1)));
    Routing one = new Routing(t, 1);
    Routing zero = new Routing(t, 0);

    assertThat(one.routes())
        .extracting(r -> r.colorId() + " via " + r.exitColorId())
        .containsExactlyInAnyOrder("0 via 1", "2 via 3", "0 via 3");
    assertThat(one.route(3, 0).shardIds()).containsExactly(10);
    assertThat(one.route(1, 0).shardIds()).containsExactly(11);
    assertThat(one.route(3, 1)).as("a is hosted on node 1 itself").isNull();
    assertThat(one.parentNodes()).containsExactly(0);
    assertThat(zero.edgesTo(1)).containsExactly(new Routing.Edge(1, 1), new Routing.Edge(3, 1));
    assertThat(zero.edgesUnder(0)).hasSize(2);
    assertThat(zero.edgesUnder(2)).containsExactly(new Routing.Edge(3, 1));
  }

  @Test
  void shouldHaveNoRouteForAColorThatIsNotAnAncestor() {
    Topology t =
        topology(
            List.of(
                new Color(0, "global", -1, 0),
                new Color(1, "left", 0, 1),
                new Color(2, "right", 0, 2)),
            List.of(shard(10, 1)));
    Routing leaf = new Routing(t, 1);

    assertThat(leaf.route(1, 2)).isNull();
    assertThat(leaf.exitColor(1, 2)).isEqualTo(-1);
  }
}
