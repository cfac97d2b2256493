package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link JoinMarkTaker#lacking}: which shards of a role's subtree no saved join mark accounts for.
 */
class JoinMarkTakerTest {
  private static final List<NodeAddress> NODES =
      List.of(
          new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 0),
          new NodeAddress(10, Kind.REPLICA, "127.0.0.1", 0));
  private static final Color GLOBAL = new Color(Color.GLOBAL_ID, "global", Color.NO_PARENT, 0);
  private static final Color LEFT = new Color(1, "left", GLOBAL.id(), 0);
  private static final Color RIGHT = new Color(2, "right", GLOBAL.id(), 0);
  private static final Color DEEP = new Color(3, "deep", LEFT.id(), 0);
  private static final Color BLUE = new Color(4, "blue", RIGHT.id(), 0);

  /** Colors with shards {@code (shard id, color)} as AddColor or the cluster file made them. */
  private static Topology topology(List<Color> colors, int... shardAndColor) {
    List<Shard> shards = new ArrayList<>();
    for (int i = 0; i < shardAndColor.length; i += 2) {
      shards.add(new Shard(shardAndColor[i], shardAndColor[i + 1], List.of(10)));
    }
    return new Topology(7, NODES, colors, shards);
  }

  @Test
  void shouldFindTheShardsOfAColorAddedAfterTheLastSavedMark() {
    // global has shard 0; left (shard 1) came with mark 2; right (shards 2, 3) lost its mark.
    Topology topology = topology(List.of(GLOBAL, LEFT, RIGHT), 0, 0, 1, 1, 2, 2, 3, 2);
    assertThat(JoinMarkTaker.lacking(topology, GLOBAL.id(), List.of(new Mark(2, 100, List.of(1)))))
        .containsExactly(2, 3);
    assertThat(JoinMarkTaker.lacking(topology, GLOBAL.id(), List.of())).containsExactly(1, 2, 3);
  }

  @Test
  void shouldFindNothingWhenEveryJoinHasAMark() {
    Topology topology = topology(List.of(GLOBAL, LEFT, RIGHT), 0, 0, 1, 1, 2, 2, 3, 2);
    List<Mark> marks = List.of(new Mark(2, 100, List.of(1)), new Mark(3, 200, List.of(2, 3)));
    assertThat(JoinMarkTaker.lacking(topology, GLOBAL.id(), marks)).isEmpty();
    // Only the subtree counts: left's subtree is shard 1 alone, its own.
    assertThat(JoinMarkTaker.lacking(topology, LEFT.id(), List.of())).isEmpty();
  }

  @Test
  void shouldCountShardsBelowTheNewestMarkAsMarkedAfterOlderMarksWereMerged() {
    // Merging the oldest marks keeps the shards both name (here none): shards 1 and 2 are no longer
    // named, but the newest mark (shard 3) shows that everything up to it was saved.
    Topology topology =
        topology(List.of(GLOBAL, LEFT, RIGHT, DEEP), 0, 0, 1, 1, 2, 2, 3, DEEP.id());
    List<Mark> merged = List.of(new Mark(3, 100, List.of()), new Mark(4, 300, List.of(3)));
    assertThat(JoinMarkTaker.lacking(topology, GLOBAL.id(), merged)).isEmpty();
  }

  @Test
  void shouldNotCountAColorsOwnShardsOrOlderDescendantsOfTheClusterFile() {
    // The cluster file gave left shard 9 and its child deep shard 4: deep's shard has a smaller
    // id than left's own, so it was there when left was created.
    Topology topology = topology(List.of(GLOBAL, LEFT, DEEP), 9, LEFT.id(), 4, DEEP.id());
    assertThat(JoinMarkTaker.lacking(topology, LEFT.id(), List.of())).isEmpty();
    // A color without shards of its own and no marks yet: every shard of the subtree lacks one
    // (its role takes one when it first starts, before it issues anything).
    assertThat(JoinMarkTaker.lacking(topology, GLOBAL.id(), List.of())).containsExactly(9, 4);
  }

  @Test
  void shouldFindAShardOfADeeperColorAddedAfterTheLastMark() {
    // blue (shard 4) under right came after mark 3 (shards 2, 3), and its mark was lost.
    Topology topology =
        topology(List.of(GLOBAL, LEFT, RIGHT, BLUE), 0, 0, 1, 1, 2, 2, 3, 2, 4, BLUE.id());
    List<Mark> marks = List.of(new Mark(2, 100, List.of(1)), new Mark(3, 200, List.of(2, 3)));
    assertThat(JoinMarkTaker.lacking(topology, GLOBAL.id(), marks)).containsExactly(4);
    assertThat(JoinMarkTaker.lacking(topology, RIGHT.id(), List.of())).containsExactly(4);
  }
}
