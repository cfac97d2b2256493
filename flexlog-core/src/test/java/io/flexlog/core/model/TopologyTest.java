package io.flexlog.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.NodeAddress.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyTest {
  private static final int SEQUENCER = 1;
  private static final int OTHER_SEQUENCER = 2;
  private static final List<NodeAddress> NODES =
      List.of(
          new NodeAddress(SEQUENCER, Kind.SEQUENCER, "seq1", 7000),
          new NodeAddress(OTHER_SEQUENCER, Kind.SEQUENCER, "seq2", 7000),
          new NodeAddress(10, Kind.REPLICA, "r10", 7100),
          new NodeAddress(11, Kind.REPLICA, "r11", 7100),
          new NodeAddress(12, Kind.REPLICA, "r12", 7100));

  // global(0) -> eu(1) -> eu-west(2); global(0) -> us(3)
  private static final Color GLOBAL = new Color(0, Color.GLOBAL, Color.NO_PARENT, SEQUENCER);
  private static final Color EU = new Color(1, "eu", 0, SEQUENCER);
  private static final Color EU_WEST = new Color(2, "eu-west", 1, OTHER_SEQUENCER);
  private static final Color US = new Color(3, "us", 0, OTHER_SEQUENCER);
  private static final List<Color> COLORS = List.of(GLOBAL, EU, EU_WEST, US);

  private static final Shard ON_GLOBAL = new Shard(100, 0, List.of(10, 11));
  private static final Shard ON_EU = new Shard(101, 1, List.of(11, 12));
  private static final Shard ON_EU_WEST = new Shard(102, 2, List.of(12, 10));
  private static final Shard ON_US = new Shard(103, 3, List.of(12));
  private static final List<Shard> SHARDS = List.of(ON_GLOBAL, ON_EU, ON_EU_WEST, ON_US);

  private final Topology topology = new Topology(5, NODES, COLORS, SHARDS);

  @Test
  void shardsInSubtreeOfGlobalAreEveryShard() {
    assertThat(topology.shardsInSubtree(0)).containsExactly(ON_GLOBAL, ON_EU, ON_EU_WEST, ON_US);
  }

  @Test
  void shardsInSubtreeOfInnerColorIncludeDescendantsButNotAncestorsOrSiblings() {
    assertThat(topology.shardsInSubtree(EU.id())).containsExactly(ON_EU, ON_EU_WEST);
  }

  @Test
  void shardsInSubtreeOfLeafColorAreOnlyItsOwn() {
    assertThat(topology.shardsInSubtree(EU_WEST.id())).containsExactly(ON_EU_WEST);
    assertThat(topology.shardsInSubtree(US.id())).containsExactly(ON_US);
  }

  @Test
  void shardsInSubtreeOfUnknownColorAreNone() {
    assertThat(topology.shardsInSubtree(99)).isEmpty();
  }

  @Test
  void colorIsInItsOwnSubtreeAndInEveryAncestorsSubtreeOnly() {
    assertThat(topology.isInSubtree(EU_WEST.id(), EU_WEST.id())).isTrue();
    assertThat(topology.isInSubtree(EU_WEST.id(), EU.id())).isTrue();
    assertThat(topology.isInSubtree(EU_WEST.id(), GLOBAL.id())).isTrue();
    assertThat(topology.isInSubtree(EU.id(), EU_WEST.id())).isFalse();
    assertThat(topology.isInSubtree(EU_WEST.id(), US.id())).isFalse();
    assertThat(topology.isInSubtree(99, GLOBAL.id())).isFalse();
  }

  @Test
  void shardsOnReplicaAreThoseThatPlaceAReplicaOnThatNode() {
    assertThat(topology.shardsOnReplica(12)).containsExactly(ON_EU, ON_EU_WEST, ON_US);
    assertThat(topology.shardsOnReplica(SEQUENCER)).isEmpty();
  }

  @Test
  void looksUpColorsByNameAndIdAndNodesById() {
    assertThat(topology.color("eu-west")).contains(EU_WEST);
    assertThat(topology.color(3)).contains(US);
    assertThat(topology.color("asia")).isEmpty();
    assertThat(topology.shard(102)).contains(ON_EU_WEST);
    assertThat(topology.node(11).hostPort()).isEqualTo("r11:7100");
    assertThatThrownBy(() -> topology.node(99)).hasMessage("unknown node id 99");
  }

  @Test
  void listsAreImmutable() {
    assertThatThrownBy(() -> topology.colors().add(GLOBAL))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> topology.nodes().remove(SEQUENCER))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void topologiesWithSameContentAreEqualAndDifferentVersionsAreNot() {
    Topology same = new Topology(5, NODES, COLORS, SHARDS);

    assertThat(same).isEqualTo(topology).hasSameHashCodeAs(topology);
    assertThat(new Topology(6, NODES, COLORS, SHARDS)).isNotEqualTo(topology);
  }

  @Test
  void rejectsColorWithUnknownParent() {
    List<Color> colors = List.of(GLOBAL, new Color(1, "eu", 7, SEQUENCER));

    assertThatThrownBy(() -> new Topology(1, NODES, colors, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("color 'eu' has unknown parent id 7");
  }

  @Test
  void rejectsDuplicateColorNames() {
    List<Color> colors =
        List.of(GLOBAL, new Color(1, "eu", 0, SEQUENCER), new Color(2, "eu", 0, 1));

    assertThatThrownBy(() -> new Topology(1, NODES, colors, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("duplicate color name: eu");
  }

  @Test
  void rejectsDuplicateIds() {
    List<Color> colors = List.of(GLOBAL, new Color(0, "eu", 0, SEQUENCER));
    List<NodeAddress> nodes =
        List.of(NODES.get(0), new NodeAddress(SEQUENCER, Kind.REPLICA, "again", 1));
    List<Shard> shards = List.of(ON_GLOBAL, new Shard(100, 0, List.of(12)));

    assertThatThrownBy(() -> new Topology(1, NODES, colors, List.of()))
        .hasMessage("duplicate color id: 0");
    assertThatThrownBy(() -> new Topology(1, nodes, List.of(), List.of()))
        .hasMessage("duplicate node id: 1");
    assertThatThrownBy(() -> new Topology(1, NODES, COLORS, shards))
        .hasMessage("duplicate shard id: 100");
  }

  @Test
  void rejectsShardPlacedOnUnknownReplicaNode() {
    List<Shard> shards = List.of(new Shard(100, 0, List.of(10, 99)));

    assertThatThrownBy(() -> new Topology(1, NODES, COLORS, shards))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("shard 100 is placed on unknown replica node 99");
  }

  @Test
  void rejectsShardPlacedOnASequencerNode() {
    List<Shard> shards = List.of(new Shard(100, 0, List.of(10, SEQUENCER)));

    assertThatThrownBy(() -> new Topology(1, NODES, COLORS, shards))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shard 100")
        .hasMessageContaining("replica node 1");
  }

  @Test
  void rejectsShardAttachedToUnknownColor() {
    List<Shard> shards = List.of(new Shard(100, 42, List.of(10)));

    assertThatThrownBy(() -> new Topology(1, NODES, COLORS, shards))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("shard 100 is attached to unknown color id 42");
  }

  @Test
  void rejectsColorPlacedOnUnknownOrNonSequencerNode() {
    List<Color> onMissing = List.of(new Color(0, Color.GLOBAL, Color.NO_PARENT, 99));
    List<Color> onReplica = List.of(new Color(0, Color.GLOBAL, Color.NO_PARENT, 10));

    assertThatThrownBy(() -> new Topology(1, NODES, onMissing, List.of()))
        .hasMessage("color 'global' is placed on unknown sequencer 99");
    assertThatThrownBy(() -> new Topology(1, NODES, onReplica, List.of()))
        .hasMessage("color 'global' is placed on unknown sequencer 10");
  }

  /** With a cycle, {@link Topology#isInSubtree} never reaches a root and never returns. */
  @Test
  void rejectsColorTreeWithACycle() {
    List<Color> colors =
        List.of(GLOBAL, new Color(1, "a", 2, SEQUENCER), new Color(2, "b", 1, SEQUENCER));

    assertThatThrownBy(() -> new Topology(1, NODES, colors, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cycle");
  }

  @Test
  void rejectsColorThatIsItsOwnParent() {
    List<Color> colors = List.of(GLOBAL, new Color(1, "a", 1, SEQUENCER));

    assertThatThrownBy(() -> new Topology(1, NODES, colors, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cycle");
  }

  @Test
  void shardRejectsEmptyAndDuplicatePlacements() {
    assertThatThrownBy(() -> new Shard(7, 0, List.of())).hasMessage("shard 7 has no replicas");
    assertThatThrownBy(() -> new Shard(7, 0, List.of(10, 11, 10)))
        .hasMessage("shard 7 places two replicas on one node: [10, 11, 10]");
  }

  @Test
  void nodeAddressRejectsPortOutOfRange() {
    assertThatThrownBy(() -> new NodeAddress(3, Kind.REPLICA, "h", 65536))
        .hasMessage("port out of range for node 3: 65536");
    assertThatThrownBy(() -> new NodeAddress(3, Kind.REPLICA, "h", -1))
        .hasMessage("port out of range for node 3: -1");
  }
}
