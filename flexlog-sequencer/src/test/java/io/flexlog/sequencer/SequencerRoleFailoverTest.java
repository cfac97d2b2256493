package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Token;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.sequencer.ordering.IssueGate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roles whose epoch comes from the metadata quorum (docs/architecture.md, "Sequencer failover"):
 * they issue in the committed role epoch only while their {@link IssueGate} (the lease) lets them,
 * and a role handed to another node by a failover issues there in the larger epoch.
 */
class SequencerRoleFailoverTest {
  private static final List<NodeAddress> NODES =
      List.of(
          new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 0),
          new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 0),
          new NodeAddress(10, Kind.REPLICA, "127.0.0.1", 0));
  private static final Shard SHARD = new Shard(0, Color.GLOBAL_ID, List.of(10));

  private static Topology led(long version, int node, int epoch) {
    return new Topology(
        version,
        NODES,
        List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, node, epoch)),
        List.of(SHARD));
  }

  @RegisterExtension static final NodeTestResources OPENED = new NodeTestResources();

  @TempDir Path dataDir;

  private SequencerNode start(int nodeId, Topology topology, IssueGate gate) throws Exception {
    SequencerNode node =
        new SequencerNode(
            SequencerConfig.builder().nodeId(nodeId).dataDir(dataDir.resolve("n" + nodeId)).build(),
            topology,
            new SimpleMeterRegistry());
    OPENED.add(node);
    node.issueGate(gate);
    node.start();
    return node;
  }

  private RawFrameClient replica(SequencerNode node) throws InterruptedException {
    RawFrameClient client = OPENED.connect(node.port());
    client.hello(10, 0);
    return client;
  }

  @Test
  void shouldHoldTheBatchUntilTheLeaseAllowsAndIssueInTheRoleEpoch() throws Exception {
    AtomicBoolean lease = new AtomicBoolean(false);
    SequencerNode node = start(0, led(2, 0, 7), (color, epoch) -> lease.get() && epoch == 7);
    RawFrameClient replica = replica(node);
    long catchUp = WatermarkDescriptor.watermark(replica.next(MessageType.WATERMARK));
    assertThat(catchUp).isEqualTo(Sn.of(7, 0));

    replica.orderRequest(Color.GLOBAL_ID, 0, 10, new Token(1, 1), new Token(1, 2));
    Thread.sleep(200);
    assertThat(replica.drain()).as("nothing ordered without the lease").isEmpty();

    lease.set(true);
    assertThat(replica.awaitOrdered(Color.GLOBAL_ID, 2))
        .extracting(RawFrameClient.Entry::sn)
        .containsExactly(Sn.of(7, 1), Sn.of(7, 2));
  }

  /**
   * An order request built for an earlier leader of the role and still on the wire when the role
   * moved here in a larger epoch is dropped (docs/architecture.md#fencing): the replica asks again
   * after its token sync with this leader, and a peer may hold the token at the old leader's SN.
   */
  @Test
  void shouldDropAnOrderRequestAddressedToAnEarlierRoleEpoch() throws Exception {
    SequencerNode node = start(0, led(2, 0, 5), (color, epoch) -> epoch == 5);
    RawFrameClient replica = replica(node);
    replica.next(MessageType.WATERMARK);

    replica.orderRequestInEpoch(3, Color.GLOBAL_ID, 0, 10, new Token(3, 1));
    replica.orderRequestInEpoch(5, Color.GLOBAL_ID, 0, 10, new Token(3, 2));
    replica.orderRequestInEpoch(0, Color.GLOBAL_ID, 0, 10, new Token(3, 3));

    assertThat(replica.awaitOrdered(Color.GLOBAL_ID, 2))
        .as("the request of epoch 3 is dropped; one of epoch 5 or naming none is ordered")
        .containsExactly(
            new RawFrameClient.Entry(new Token(3, 2), Sn.of(5, 1)),
            new RawFrameClient.Entry(new Token(3, 3), Sn.of(5, 2)));
    replica.orderRequestInEpoch(5, Color.GLOBAL_ID, 0, 10, new Token(3, 1));
    assertThat(replica.awaitOrdered(Color.GLOBAL_ID, 1))
        .containsExactly(new RawFrameClient.Entry(new Token(3, 1), Sn.of(5, 3)));
  }

  /**
   * A restarted process whose topology names this node the leader in an epoch the earlier process
   * took promises the whole epoch in its catch-up watermark (docs/architecture.md#sync-phase): the
   * earlier process may have issued any SN of it, and this one issues only in a later epoch.
   */
  @Test
  void shouldPromiseTheWholeEpochWhenAnEarlierProcessTookIt() throws Exception {
    AtomicBoolean tookSeven = new AtomicBoolean(false);
    IssueGate gate =
        new IssueGate() {
          @Override
          public boolean mayIssue(int colorId, int epoch) {
            return tookSeven.get() && epoch == 7;
          }

          @Override
          public boolean tookEpoch(int colorId, int epoch) {
            return tookSeven.get() && epoch == 7;
          }
        };
    SequencerNode node = start(0, led(2, 0, 7), gate);
    RawFrameClient inherited = replica(node);
    assertThat(WatermarkDescriptor.watermark(inherited.next(MessageType.WATERMARK)))
        .isEqualTo(Sn.of(7, Sn.MAX_COUNTER));

    tookSeven.set(true);
    RawFrameClient own = replica(node);
    assertThat(WatermarkDescriptor.watermark(own.next(MessageType.WATERMARK)))
        .as("an epoch this process took starts at its first SN")
        .isEqualTo(Sn.of(7, 0));
  }

  @Test
  void shouldIssueLargerSnsOnTheNodeThatTookTheRoleOver() throws Exception {
    AtomicBoolean oldLease = new AtomicBoolean(true);
    SequencerNode old = start(0, led(2, 0, 3), (color, epoch) -> oldLease.get());
    SequencerNode backup = start(1, led(2, 0, 3), (color, epoch) -> epoch == 4);
    RawFrameClient first = replica(old);
    first.orderRequest(Color.GLOBAL_ID, 0, 10, new Token(2, 1));
    long before = first.awaitOrdered(Color.GLOBAL_ID, 1).get(0).sn();

    // The lease lapses; the quorum commits epoch 4 for node 1 as topology version 3.
    oldLease.set(false);
    backup.updateTopology(led(3, 1, 4));
    old.updateTopology(led(3, 1, 4));

    RawFrameClient moved = replica(backup);
    moved.orderRequest(Color.GLOBAL_ID, 0, 10, new Token(2, 2));
    long after = moved.awaitOrdered(Color.GLOBAL_ID, 1).get(0).sn();

    assertThat(Sn.epoch(before)).isEqualTo(3);
    assertThat(after).isEqualTo(Sn.of(4, 1)).isGreaterThan(before);
    assertThat(old.topology().color(Color.GLOBAL_ID).orElseThrow().sequencerId()).isEqualTo(1);
  }
}
