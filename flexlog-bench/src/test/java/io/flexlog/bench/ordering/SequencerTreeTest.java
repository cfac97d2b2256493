package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequencerTreeTest {

  @Test
  void shouldAttachEveryShardToGlobalWithoutLeaves() {
    SequencerTree tree =
        SequencerTree.build(0, 1, 3, Placement.LOOPBACK, OrderedColor.ROOT, new int[] {7000});
    Topology t = tree.topology();

    assertThat(t.colors()).containsExactly(new Color(0, "global", Color.NO_PARENT, 0));
    assertThat(t.node(0))
        .isEqualTo(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 7000));
    assertThat(t.shards())
        .containsExactly(
            new Shard(0, 0, List.of(1)), new Shard(1, 0, List.of(2)), new Shard(2, 0, List.of(3)));
    assertThat(tree.attachments())
        .containsExactly(
            new SequencerTree.Attachment(0, 1, 0, 0, 0),
            new SequencerTree.Attachment(1, 2, 1, 0, 0),
            new SequencerTree.Attachment(2, 3, 2, 0, 0));
    assertThat(tree.sequencerNodeIds()).containsExactly(0);
  }

  @Test
  void shouldPlaceEachLeafOnItsOwnSequencerNodeUnderTheRoot() {
    SequencerTree tree =
        SequencerTree.build(
            2, 2, 4, Placement.LOOPBACK, OrderedColor.ROOT, new int[] {7000, 7001, 7002});
    Topology t = tree.topology();

    assertThat(t.colors())
        .containsExactly(
            new Color(0, "global", Color.NO_PARENT, 0),
            new Color(1, "leaf-1", 0, 1),
            new Color(2, "leaf-2", 0, 2));
    assertThat(t.node(2).port()).isEqualTo(7002);
    // Clients alternate between the leaves and connect to the node hosting their shard's color.
    assertThat(t.shards())
        .containsExactly(
            new Shard(0, 1, List.of(3)),
            new Shard(1, 2, List.of(4)),
            new Shard(2, 1, List.of(5)),
            new Shard(3, 2, List.of(6)));
    assertThat(tree.attachments())
        .extracting(SequencerTree.Attachment::sequencerNodeId)
        .containsExactly(1, 2, 1, 2);
    assertThat(tree.attachments())
        .extracting(SequencerTree.Attachment::requestColorId)
        .containsOnly(Color.GLOBAL_ID);
    assertThat(t.shardsInSubtree(Color.GLOBAL_ID)).hasSize(4);
    assertThat(t.shardsInSubtree(1)).extracting(Shard::id).containsExactly(0, 2);
    assertThat(tree.sequencerNodeIds()).containsExactly(0, 1, 2);
  }

  @Test
  void shouldAskForTheAttachedColorWithLeafColor() {
    SequencerTree tree =
        SequencerTree.build(
            2, 2, 3, Placement.LOOPBACK, OrderedColor.LEAF, new int[] {7000, 7001, 7002});

    assertThat(tree.attachments())
        .extracting(SequencerTree.Attachment::requestColorId)
        .containsExactly(1, 2, 1);
  }

  @Test
  void shouldBuildAChainOfHeightLevelsPerLeaf() {
    SequencerTree tree =
        SequencerTree.build(
            2, 4, 2, Placement.LOOPBACK, OrderedColor.ROOT, new int[] {1, 2, 3, 4, 5, 6, 7});
    Topology t = tree.topology();

    assertThat(t.colors())
        .containsExactly(
            new Color(0, "global", Color.NO_PARENT, 0),
            new Color(1, "mid1-1", 0, 1),
            new Color(2, "mid2-1", 1, 2),
            new Color(3, "leaf-1", 2, 3),
            new Color(4, "mid1-2", 0, 4),
            new Color(5, "mid2-2", 4, 5),
            new Color(6, "leaf-2", 5, 6));
    assertThat(t.shards()).extracting(Shard::colorId).containsExactly(3, 6);
    assertThat(tree.attachments())
        .extracting(SequencerTree.Attachment::sequencerNodeId)
        .containsExactly(3, 6);
    // Every color's parent comes first, so starting nodes in id order starts parents first.
    for (Color color : t.colors()) {
      assertThat(color.parentId()).isLessThan(color.id());
    }
  }

  @Test
  void shouldHostEveryRoleOnOneNodeInProcess() {
    SequencerTree tree =
        SequencerTree.build(2, 3, 2, Placement.IN_PROCESS, OrderedColor.ROOT, new int[] {7000});

    assertThat(tree.topology().colors()).extracting(Color::sequencerId).containsOnly(0);
    assertThat(tree.sequencerNodeIds()).containsExactly(0);
    assertThat(tree.attachments())
        .extracting(SequencerTree.Attachment::sequencerNodeId)
        .containsOnly(0);
    assertThat(tree.topology().shards()).extracting(Shard::colorId).containsExactly(2, 4);
  }

  @Test
  void shouldCountSequencerNodesPerPlacement() {
    assertThat(SequencerTree.sequencerNodeCount(0, 1, Placement.LOOPBACK)).isEqualTo(1);
    assertThat(SequencerTree.sequencerNodeCount(4, 2, Placement.LOOPBACK)).isEqualTo(5);
    assertThat(SequencerTree.sequencerNodeCount(1, 5, Placement.LOOPBACK)).isEqualTo(5);
    assertThat(SequencerTree.sequencerNodeCount(4, 3, Placement.IN_PROCESS)).isEqualTo(1);
  }

  @Test
  void shouldDescribeTheShape() {
    assertThat(
            SequencerTree.build(0, 1, 1, Placement.LOOPBACK, OrderedColor.ROOT, new int[] {1})
                .describe())
        .isEqualTo("root only (height 1), 1 sequencer node (loopback)");
    assertThat(
            SequencerTree.build(2, 2, 2, Placement.LOOPBACK, OrderedColor.ROOT, new int[] {1, 2, 3})
                .describe())
        .isEqualTo("root + 2 leaves, height 2, 3 sequencer nodes (loopback)");
    assertThat(
            SequencerTree.build(1, 3, 2, Placement.IN_PROCESS, OrderedColor.ROOT, new int[] {1})
                .describe())
        .isEqualTo("root + 1 leaf, height 3, 1 sequencer node (in-process)");
  }

  @Test
  void shouldRejectShapesItCannotBuild() {
    int[] one = {1};
    assertThatThrownBy(
            () -> SequencerTree.build(0, 2, 1, Placement.LOOPBACK, OrderedColor.ROOT, one))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no tree with leaves=0, height=2");
    assertThatThrownBy(
            () -> SequencerTree.build(1, 1, 1, Placement.LOOPBACK, OrderedColor.ROOT, one))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> SequencerTree.build(0, 1, 1, Placement.LOOPBACK, OrderedColor.LEAF, one))
        .hasMessageContaining("no leaf color");
    assertThatThrownBy(
            () -> SequencerTree.build(2, 2, 2, Placement.LOOPBACK, OrderedColor.ROOT, one))
        .hasMessageContaining("expected 3 sequencer ports, got 1");
  }
}
