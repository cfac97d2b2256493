package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The keeper keeps the metadata quorum's leader off the role leaders: a node that leads a role and
 * the quorum hands the quorum to a responsive backup that leads no role, and to nobody else. Also
 * what the keeper reports of its leases ({@code leasedRoles}, the {@code
 * flexlog.sequencer.roles.leased} gauge), and that a backup does not count the time the quorum
 * spent without a leader, or changing it, as a lapse of the role's lease.
 */
class RoleLeaseKeeperHandOffTest {
  private static final RoleLeaseKeeper.Timing TIMING = RoleLeaseKeeper.Timing.DEFAULT;

  private long nowNs = 1_000_000_000L;
  private final Map<Integer, RoleLease> leases = new HashMap<>();
  private final List<Integer> handedTo = new ArrayList<>();
  private List<Integer> responsive = List.of();
  private long leadershipView = 7;

  private static Topology topology() {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(new NodeAddress(i, Kind.SEQUENCER, "127.0.0.1", 1000 + i));
    }
    nodes.add(new NodeAddress(3, Kind.REPLICA, "127.0.0.1", 1003));
    return new Topology(
        1,
        nodes,
        List.of(
            new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(1, "orders", Color.GLOBAL_ID, 1)),
        List.of(new Shard(0, 1, List.of(3))));
  }

  private final RoleLeaseKeeper.Quorum quorum =
      new RoleLeaseKeeper.Quorum() {
        @Override
        public RoleCommand.Reply renew(int colorId, int nodeId, int epoch) {
          RoleLease lease = leases.get(colorId);
          RoleLease renewed = new RoleLease(colorId, nodeId, epoch, lease.renewals() + 1);
          leases.put(colorId, renewed);
          return new RoleCommand.Reply(true, renewed);
        }

        @Override
        public RoleCommand.Reply take(int colorId, int nodeId, RoleLease seen, int minEpoch) {
          int epoch = Math.max(minEpoch, seen == null ? 1 : seen.epoch() + 1);
          RoleLease taken = new RoleLease(colorId, nodeId, epoch, 0);
          leases.put(colorId, taken);
          return new RoleCommand.Reply(true, taken);
        }

        @Override
        public Map<Integer, RoleLease> leases() {
          return Map.copyOf(leases);
        }

        @Override
        public Topology topology() {
          return RoleLeaseKeeperHandOffTest.topology();
        }

        @Override
        public List<Integer> responsiveFollowers() {
          return responsive;
        }

        @Override
        public void handLeadershipTo(int nodeId) {
          handedTo.add(nodeId);
        }

        @Override
        public long leadershipView() {
          return leadershipView;
        }
      };

  private RoleLeaseKeeper keeper(int selfId) {
    return new RoleLeaseKeeper(selfId, 1, List.of(0, 1, 2), quorum, () -> nowNs, TIMING);
  }

  private void advance(Duration d) {
    nowNs += d.toNanos();
  }

  /**
   * Heartbeats until the settling time after a takeover ends: the keeper renews what it leads, and
   * the other leaders renew theirs, so that the keeper takes nothing over meanwhile.
   */
  private void settle(RoleLeaseKeeper keeper) {
    long end = nowNs + TIMING.lease().toNanos() * RoleLeaseKeeper.SETTLE_LEASES;
    while (nowNs < end) {
      advance(TIMING.heartbeat());
      leases.replaceAll(
          (color, lease) ->
              keeper.mayIssue(color, lease.epoch())
                  ? lease
                  : new RoleLease(
                      color, lease.leaderNodeId(), lease.epoch(), lease.renewals() + 1));
      keeper.tick();
    }
  }

  @Test
  void shouldCountARoleAsLeasedOnlyUntilItsLeaseLapses() {
    RoleLeaseKeeper keeper = keeper(0);
    assertThat(keeper.leasedRoles()).isZero();

    keeper.tick(); // takes global, which names node 0; 'orders' names node 1
    assertThat(keeper.leasedRoles()).isEqualTo(1);

    advance(TIMING.lease().minus(TIMING.margin()).minusNanos(1));
    assertThat(keeper.leasedRoles()).as("the last renewal still holds").isEqualTo(1);
    advance(Duration.ofNanos(1));
    assertThat(keeper.leasedRoles())
        .as("no renewal for a lease minus the margin: it may not issue")
        .isZero();
    assertThat(keeper.mayIssue(Color.GLOBAL_ID, 1)).isFalse();

    keeper.tick(); // renews
    assertThat(keeper.leasedRoles()).isEqualTo(1);
  }

  @Test
  void shouldHandTheQuorumToAResponsiveBackupThatLeadsNoRole() {
    leases.put(1, new RoleLease(1, 1, 1, 0)); // node 1 leads 'orders'
    responsive = List.of(1, 2);
    RoleLeaseKeeper keeper = keeper(0);

    keeper.tick(); // takes global, which names node 0
    assertThat(keeper.mayIssue(Color.GLOBAL_ID, 1)).isTrue();
    assertThat(handedTo).as("the takeover settles first").isEmpty();

    settle(keeper);
    assertThat(handedTo).as("node 1 leads a role, node 2 none").containsExactly(2);
  }

  @Test
  void shouldHandItOnAgainOnlyAfterTheIntervalWhileItStillLeadsTheQuorum() {
    responsive = List.of(1, 2);
    RoleLeaseKeeper keeper = keeper(0);
    keeper.tick();
    settle(keeper);
    assertThat(handedTo).containsExactly(1);

    advance(TIMING.heartbeat());
    keeper.tick();
    assertThat(handedTo).as("a hand-off under way is not repeated every heartbeat").hasSize(1);

    advance(TIMING.lease().multipliedBy(RoleLeaseKeeper.HAND_OFF_INTERVAL_LEASES));
    keeper.tick();
    assertThat(handedTo).as("it still leads the quorum: tries again").containsExactly(1, 1);
  }

  @Test
  void shouldKeepTheQuorumWhenNoResponsiveBackupIsFreeOfRoles() {
    leases.put(1, new RoleLease(1, 1, 1, 0));
    responsive = List.of(1); // node 2 does not answer
    RoleLeaseKeeper keeper = keeper(0);

    keeper.tick();
    settle(keeper);

    assertThat(keeper.mayIssue(Color.GLOBAL_ID, 1)).isTrue();
    assertThat(handedTo).isEmpty();
  }

  @Test
  void shouldNotHandOnAQuorumItDoesNotLeadOrWhenItLeadsNoRole() {
    RoleLeaseKeeper follower = keeper(0);
    follower.tick(); // leads global, but not the quorum (no followers reported)
    settle(follower);
    assertThat(handedTo).isEmpty();

    leases.clear();
    leases.put(Color.GLOBAL_ID, new RoleLease(Color.GLOBAL_ID, 0, 1, 0));
    leases.put(1, new RoleLease(1, 1, 1, 0));
    responsive = List.of(0, 1);
    RoleLeaseKeeper idle = keeper(2); // leads the quorum, no role
    idle.tick();
    settle(idle);
    assertThat(handedTo).isEmpty();
  }

  @Test
  void shouldNotCountTimeWithoutASteadyQuorumLeaderAsALapse() {
    leases.put(Color.GLOBAL_ID, new RoleLease(Color.GLOBAL_ID, 0, 1, 3));
    RoleLeaseKeeper backup = keeper(1); // rank 1: waits a lease and a heartbeat
    Duration wait = TIMING.lease().plus(TIMING.heartbeat());
    backup.tick(); // sees renewal 3

    advance(Duration.ofMillis(300));
    leadershipView = -1; // a hand-off: the quorum elects a leader, no renewal commits
    backup.tick();
    advance(Duration.ofMillis(300));
    leadershipView = 8; // the new leader
    backup.tick();
    assertThat(leases.get(Color.GLOBAL_ID).leaderNodeId())
        .as("600 ms without a renewal, but the quorum had no leader for all of it")
        .isZero();

    advance(wait.minusMillis(1));
    backup.tick();
    assertThat(leases.get(Color.GLOBAL_ID).leaderNodeId()).isZero();
    advance(Duration.ofMillis(1));
    backup.tick();
    assertThat(leases.get(Color.GLOBAL_ID))
        .as("a whole wait under the new quorum leader without a renewal: the lease lapsed")
        .isEqualTo(new RoleLease(Color.GLOBAL_ID, 1, 2, 0));
  }

  @Test
  void shouldTakeALapsedRoleAfterTheWaitWhileTheQuorumLeaderStaysTheSame() {
    leases.put(Color.GLOBAL_ID, new RoleLease(Color.GLOBAL_ID, 0, 1, 3));
    RoleLeaseKeeper backup = keeper(1);
    backup.tick();

    advance(TIMING.lease().plus(TIMING.heartbeat()).minusMillis(1));
    backup.tick();
    assertThat(leases.get(Color.GLOBAL_ID).leaderNodeId()).isZero();
    advance(Duration.ofMillis(1));
    backup.tick();
    assertThat(leases.get(Color.GLOBAL_ID).leaderNodeId()).isEqualTo(1);
  }
}
