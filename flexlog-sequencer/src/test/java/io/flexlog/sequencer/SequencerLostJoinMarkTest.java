package io.flexlog.sequencer;

import static io.flexlog.sequencer.JoinMarkFixture.GLOBAL;
import static io.flexlog.sequencer.JoinMarkFixture.NEW_SHARD;
import static io.flexlog.sequencer.JoinMarkFixture.NODES;
import static io.flexlog.sequencer.JoinMarkFixture.V1;
import static io.flexlog.sequencer.JoinMarkFixture.V2;
import static io.flexlog.sequencer.JoinMarkFixture.orderOneAndJoinV2;
import static io.flexlog.sequencer.JoinMarkFixture.quorumStore;
import static io.flexlog.sequencer.JoinMarkFixture.v2LedBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Token;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.util.DurableFiles;
import io.flexlog.sequencer.ordering.IssueGate;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A role that finds shards of its subtree without a saved join mark, because the process that took
 * the mark stopped before it was saved (docs/architecture.md#join-marks): when it looks, what it
 * takes, and what it saves before it issues. The two cases of issue 10's window (a restart, a
 * takeover) are in {@link SequencerTopologyUpdateTest}.
 */
class SequencerLostJoinMarkTest {
  @RegisterExtension static final NodeTestResources OPENED = new NodeTestResources();

  @TempDir Path dataDir;

  private SequencerNode node(int nodeId, Path dir, Topology topology) {
    SequencerNode node =
        new SequencerNode(
            SequencerConfig.builder().nodeId(nodeId).dataDir(dir).build(),
            topology,
            new SimpleMeterRegistry());
    OPENED.add(node);
    return node;
  }

  private RawFrameClient connect(SequencerNode node) throws InterruptedException {
    RawFrameClient client = OPENED.connect(node.port());
    return client;
  }

  /**
   * A color whose subtree came with the cluster file (global with shard 0, blue below it with shard
   * 1): its first process saves a mark naming the whole subtree, which no replica hears of, so that
   * a later process can tell blue's shard from a shard whose mark was lost. Then green joins (V2)
   * and its mark is never saved; the restarted process repeats a new one to the replicas of both
   * older shards.
   */
  @Test
  void shouldTellTheClusterFilesShardsFromAShardWhoseMarkWasLost() throws Exception {
    Color blue = new Color(1, "blue", GLOBAL.id(), 0);
    Shard blueShard = new Shard(1, blue.id(), List.of(10));
    Topology first =
        new Topology(
            1,
            NODES,
            List.of(GLOBAL, blue),
            List.of(new Shard(0, GLOBAL.id(), List.of(10, 11)), blueShard));
    SequencerNode node = node(0, dataDir, first);
    node.start();
    RawFrameClient blueReplica = connect(node);
    blueReplica.hello(10, blueShard.id());
    // The catch-up: the watermarks of global and blue, no mark.
    blueReplica.next(MessageType.WATERMARK);
    blueReplica.next(MessageType.WATERMARK);
    assertThat(JoinMarkFile.open(dataDir, 0).load(GLOBAL.id()))
        .containsExactly(new JoinMarkStore.Mark(1, Sn.of(node.epoch(), 1), List.of(0, 1)));
    Path blocked = DurableFiles.tempFile(dataDir.resolve("join-marks"));
    Files.createDirectory(blocked); // every later save fails
    List<Color> colors = new ArrayList<>(first.colors());
    colors.add(new Color(JoinMarkFixture.GREEN, "green", GLOBAL.id(), 0));
    List<Shard> shards = new ArrayList<>(first.shards());
    shards.add(new Shard(NEW_SHARD, JoinMarkFixture.GREEN, List.of(11)));
    Topology second = new Topology(2, NODES, colors, shards);
    node.updateTopology(second);
    blueReplica.next(MessageType.TOPOLOGY_MARK);
    node.close();
    Files.delete(blocked);

    SequencerNode restarted = node(0, dataDir, second);
    restarted.start();
    RawFrameClient returning = connect(restarted);
    returning.hello(10, blueShard.id());
    ByteBuf mark = returning.next(MessageType.TOPOLOGY_MARK);
    assertThat(TopologyMarkDescriptor.topologyVersion(mark)).isEqualTo(2);
    assertThat(TopologyMarkDescriptor.markSn(mark)).isEqualTo(Sn.of(restarted.epoch(), 1));
    assertThat(JoinMarkFile.open(dataDir, 0).load(GLOBAL.id()))
        .extracting(JoinMarkStore.Mark::joinedShardIds)
        .containsExactly(List.of(0, 1), List.of(NEW_SHARD));
  }

  /**
   * A mark that reached the node's file but not the quorum (the process stopped in between) is
   * saved in the quorum again by the restarted process before it issues anything: it may issue
   * records of the new shard above that mark, and the role's next leader looks only there.
   */
  @Test
  void shouldSaveAMarkOnlyTheFileKeptInTheQuorumBeforeIssuing() throws Exception {
    Map<Integer, List<JoinMarkStore.Mark>> quorum = new ConcurrentHashMap<>();
    SequencerNode node =
        new SequencerNode(
            SequencerConfig.builder().nodeId(0).dataDir(dataDir).build(),
            V1,
            new SimpleMeterRegistry());
    OPENED.add(node);
    node.sharedJoinMarks(quorumStore(quorum, new CompletableFuture<>())); // never commits
    node.start();
    long last = orderOneAndJoinV2(connect(node), node);

    CompletableFuture<Void> committed = new CompletableFuture<>();
    SequencerNode restarted =
        new SequencerNode(
            SequencerConfig.builder().nodeId(0).dataDir(dataDir).build(),
            V2,
            new SimpleMeterRegistry());
    OPENED.add(restarted);
    restarted.sharedJoinMarks(quorumStore(quorum, committed));
    restarted.start();
    RawFrameClient returning = connect(restarted);
    returning.hello(10, 0);
    assertThat(TopologyMarkDescriptor.markSn(returning.next(MessageType.TOPOLOGY_MARK)))
        .as("the file's mark, not a new one")
        .isEqualTo(last + 1);
    returning.next(MessageType.WATERMARK);
    returning.orderRequest(GLOBAL.id(), 0, 10, new Token(8, 2));
    Thread.sleep(300);
    assertThat(returning.drain()).as("frames before the quorum has the mark").isEmpty();
    committed.complete(null);
    assertThat(returning.awaitOrdered(GLOBAL.id(), 1)).hasSize(1);
    assertThat(quorum.get(GLOBAL.id()))
        .containsExactly(new JoinMarkStore.Mark(2, last + 1, List.of(NEW_SHARD)));
  }

  /**
   * With leases, a role looks for lost marks only once this process took the role in the epoch its
   * topology names: before, this node's copy of the metadata may not have applied every mark saved
   * so far (a restarted node catches up slowly), and a mark it lacks proves nothing. Here the node
   * restarted with a topology naming it in an epoch an earlier process took, and the role holds
   * until it takes a new one.
   */
  @Test
  void shouldLookForLostMarksOnlyAfterThisProcessTookTheRole() throws Exception {
    Map<Integer, List<JoinMarkStore.Mark>> quorum = new ConcurrentHashMap<>();
    SequencerNode former =
        new SequencerNode(
            SequencerConfig.builder().nodeId(0).dataDir(dataDir.resolve("node-0")).build(),
            V1,
            new SimpleMeterRegistry());
    OPENED.add(former);
    former.sharedJoinMarks(quorumStore(quorum, new CompletableFuture<>())); // never commits
    former.start();
    orderOneAndJoinV2(connect(former), former);

    int earlierEpoch = former.epoch() + 1;
    Topology led = v2LedBy(3, 1, earlierEpoch);
    Set<Integer> taken = ConcurrentHashMap.newKeySet();
    SequencerNode node =
        new SequencerNode(
            SequencerConfig.builder().nodeId(1).dataDir(dataDir.resolve("node-1")).build(),
            led,
            new SimpleMeterRegistry());
    OPENED.add(node);
    node.issueGate(
        new IssueGate() {
          @Override
          public boolean mayIssue(int colorId, int epoch) {
            return taken.contains(epoch);
          }

          @Override
          public boolean tookEpoch(int colorId, int epoch) {
            return taken.contains(epoch);
          }
        });
    node.sharedJoinMarks(quorumStore(quorum, CompletableFuture.completedFuture(null)));
    node.start();
    RawFrameClient returning = connect(node);
    returning.hello(10, 0);
    assertThat(WatermarkDescriptor.watermark(returning.next(MessageType.WATERMARK)))
        .as("no mark yet: the catch-up promises the earlier process's whole epoch")
        .isEqualTo(Sn.of(earlierEpoch, Sn.MAX_COUNTER));
    assertThat(quorum).isEmpty();

    // This process takes the role in a new epoch (version 4): now it looks, and takes the mark.
    int newEpoch = earlierEpoch + 1;
    taken.add(newEpoch);
    node.updateTopology(v2LedBy(4, 1, newEpoch));
    ByteBuf mark = returning.next(MessageType.TOPOLOGY_MARK);
    assertThat(TopologyMarkDescriptor.topologyVersion(mark)).isEqualTo(4);
    assertThat(TopologyMarkDescriptor.markSn(mark)).isEqualTo(Sn.of(newEpoch, 1));
    assertThat(quorum.get(GLOBAL.id()))
        .containsExactly(new JoinMarkStore.Mark(4, Sn.of(newEpoch, 1), List.of(NEW_SHARD)));
  }
}
