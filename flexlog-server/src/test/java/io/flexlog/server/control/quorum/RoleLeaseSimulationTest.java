package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The lease protocol of {@link RoleLeaseKeeper} against the metadata state machine's own rules
 * ({@link RoleApply}), in virtual time with seeded faults: leader crashes, partitions of a leader
 * from the quorum (its requests lost, or applied with the answer lost), stale copies of the
 * metadata, and leaders whose role reports its epoch exhausted ({@link
 * RoleLeaseKeeper#epochExhausted}). After every step: no two nodes may issue SNs of a color at
 * once, and every new leader's epoch is larger than every earlier one; after every heartbeat, a
 * node never issues again in an epoch it reported exhausted. While no node is partitioned, some
 * node leads again within two leases and four heartbeats of losing the leader.
 */
class RoleLeaseSimulationTest {
  private static final int NODES = 3;
  private static final RoleLeaseKeeper.Timing TIMING = RoleLeaseKeeper.Timing.DEFAULT;
  private static final long STEP_NS = 10_000_000L; // 10 ms of virtual time per step

  @Test
  void shouldNeverLetTwoNodesIssueAndShouldFailOverAfterCrashesAndPartitions() {
    long exhaustionTakes = 0;
    for (long seed = 1; seed <= 300; seed++) {
      Run run = new Run(seed);
      run.run();
      for (Run.Node node : run.nodes) {
        exhaustionTakes += node.exhaustionTakes + node.keeper.exhaustionTakes();
      }
    }
    assertThat(exhaustionTakes).as("roles taken again for an exhausted epoch").isGreaterThan(300);
  }

  /** One seeded run of 60 virtual seconds. */
  private static final class Run {
    private final long seed;
    private final Random random;
    private final MetadataStateMachine committed = new MetadataStateMachine(t -> {});
    private final long[] now = {0};
    private final Node[] nodes = new Node[NODES];
    private int highestEpoch = -1;
    private int highestLeaderEpoch;

    Run(long seed) {
      this.seed = seed;
      this.random = new Random(seed);
      committed.commitTopology(topology());
      for (int i = 0; i < NODES; i++) {
        nodes[i] = new Node(i);
      }
    }

    void run() {
      long leaderlessSinceNs = -1;
      for (long step = 0; step < 6_000; step++) {
        now[0] += STEP_NS;
        maybeFault();
        for (Node node : nodes) {
          node.step();
        }
        check();
        boolean someoneLeads = false;
        for (Node node : nodes) {
          someoneLeads |= node.alive && node.keeper.mayIssue(0, currentEpoch());
        }
        if (someoneLeads || !quorumReachable()) {
          leaderlessSinceNs = -1;
        } else if (leaderlessSinceNs < 0) {
          leaderlessSinceNs = now[0];
        } else {
          long boundNs = 2 * TIMING.lease().toNanos() + 4 * TIMING.heartbeat().toNanos();
          assertThat(now[0] - leaderlessSinceNs)
              .as("seed %d: no leader of color 0 for too long at %d ms", seed, now[0] / 1_000_000)
              .isLessThan(boundNs);
        }
      }
    }

    // Liveness is only promised while no node is cut off: a partitioned leader whose renewals
    // still get through (answers lost) keeps its lease without being able to use it.
    private boolean quorumReachable() {
      for (Node node : nodes) {
        if (node.partitioned) {
          return false;
        }
      }
      return true;
    }

    private int currentEpoch() {
      RoleLease lease = committed.leases().get(0);
      return lease == null ? -1 : lease.epoch();
    }

    private void maybeFault() {
      if (random.nextInt(300) != 0) {
        return;
      }
      Node victim = nodes[random.nextInt(NODES)];
      switch (random.nextInt(3)) {
        case 0 -> victim.restart(); // kill -9 and start again: new incarnation, new node epoch
        case 1 -> victim.partitioned = true;
        default -> {
          for (Node node : nodes) {
            node.partitioned = false;
          }
        }
      }
    }

    private void check() {
      int issuing = -1;
      for (Node node : nodes) {
        for (int epoch = 1; epoch <= Math.max(highestEpoch, 0) + 1; epoch++) {
          if (node.alive && node.keeper.mayIssue(0, epoch)) {
            assertThat(issuing)
                .as(
                    "seed %d at %d ms: nodes %d and %d both issue",
                    seed, now[0] / 1_000_000, issuing, node.id)
                .isIn(-1, node.id);
            issuing = node.id;
            highestLeaderEpoch = Math.max(highestLeaderEpoch, epoch);
          }
        }
      }
      int epoch = currentEpoch();
      assertThat(epoch)
          .as("seed %d: epochs never go back", seed)
          .isGreaterThanOrEqualTo(highestEpoch);
      highestEpoch = Math.max(highestEpoch, epoch);
      Color color = committed.topology().orElseThrow().color(0).orElseThrow();
      if (epoch > 0) {
        assertThat(color.roleEpoch()).isEqualTo(epoch);
        assertThat(color.sequencerId()).isEqualTo(committed.leases().get(0).leaderNodeId());
      }
    }

    private final class Node {
      final int id;

      /** Epochs this node's role reported exhausted: it may never issue in them again. */
      final Set<Integer> spent = new HashSet<>();

      /** Exhaustion takes of this node's earlier incarnations. */
      long exhaustionTakes;

      boolean alive = true;
      boolean partitioned;
      int nodeEpoch = 1;
      long nextTickNs;
      Map<Integer, RoleLease> viewLeases = Map.of();
      Topology viewTopology;
      RoleLeaseKeeper keeper;

      Node(int id) {
        this.id = id;
        this.keeper = keeper();
      }

      RoleLeaseKeeper keeper() {
        return new RoleLeaseKeeper(
            id, nodeEpoch, List.of(0, 1, 2), new FakeQuorum(this), () -> now[0], TIMING);
      }

      void restart() {
        exhaustionTakes += keeper.exhaustionTakes();
        nodeEpoch++;
        keeper = keeper();
        viewLeases = Map.of();
        viewTopology = null;
        nextTickNs = now[0] + 200_000_000L + random.nextInt(300) * 1_000_000L;
      }

      void step() {
        if (!partitioned && random.nextInt(10) < 7) {
          viewLeases = committed.leases();
          viewTopology = committed.topology().orElseThrow();
        }
        int epoch = currentEpoch();
        if (keeper.mayIssue(0, epoch) && random.nextInt(40) == 0) {
          keeper.epochExhausted(0, epoch); // its role used up the epoch's counter
          spent.add(epoch);
        }
        if (now[0] >= nextTickNs) {
          keeper.tick();
          nextTickNs = now[0] + TIMING.heartbeat().toNanos() + random.nextInt(3) * STEP_NS;
          for (int e : spent) {
            assertThat(keeper.mayIssue(0, e))
                .as("seed %d: node %d issues in epoch %d, which it reported exhausted", seed, id, e)
                .isFalse();
          }
        }
      }
    }

    /** The committed state behind a node's view; a partitioned node's requests fail. */
    private final class FakeQuorum implements RoleLeaseKeeper.Quorum {
      private final Node node;

      FakeQuorum(Node node) {
        this.node = node;
      }

      private RoleCommand.Reply propose(byte[] entry) {
        if (node.partitioned) {
          if (random.nextBoolean()) {
            apply(entry); // applied, but the answer never comes back
          }
          throw new MetadataUnavailableException("partitioned");
        }
        return RoleCommand.decodeReply(java.nio.ByteBuffer.wrap(apply(entry)));
      }

      private byte[] apply(byte[] entry) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(entry);
        return RoleApply.apply(committed, RoleCommand.decode(MetadataCommand.kind(buf), buf));
      }

      @Override
      public RoleCommand.Reply renew(int colorId, int nodeId, int epoch) {
        return propose(
            RoleCommand.encode(MetadataCommand.Kind.RENEW_ROLE, colorId, nodeId, epoch, 0, 0));
      }

      @Override
      public RoleCommand.Reply take(int colorId, int nodeId, RoleLease seen, int minEpoch) {
        return propose(
            RoleCommand.encode(
                MetadataCommand.Kind.TAKE_ROLE,
                colorId,
                nodeId,
                seen == null ? -1 : seen.epoch(),
                seen == null ? 0 : seen.renewals(),
                minEpoch));
      }

      @Override
      public Map<Integer, RoleLease> leases() {
        return node.viewLeases;
      }

      @Override
      public Topology topology() {
        return node.viewTopology;
      }

      // This model of the quorum has no leader of its own: it never reports followers, so no node
      // hands its leadership on (the hand-off is tested in RoleLeaseKeeperHandOffTest).
      @Override
      public List<Integer> responsiveFollowers() {
        return List.of();
      }

      @Override
      public void handLeadershipTo(int nodeId) {
        throw new AssertionError("this model of the quorum has no leader to hand on");
      }
    }
  }

  private static Topology topology() {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      nodes.add(new NodeAddress(i, Kind.SEQUENCER, "127.0.0.1", 1000 + i));
      nodes.add(new NodeAddress(10 + i, Kind.REPLICA, "127.0.0.1", 1010 + i));
    }
    return new Topology(
        1,
        nodes,
        List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0)),
        List.of(new Shard(0, Color.GLOBAL_ID, List.of(10, 11, 12))));
  }
}
