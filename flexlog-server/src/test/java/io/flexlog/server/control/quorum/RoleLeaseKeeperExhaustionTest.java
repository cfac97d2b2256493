package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A role that used up its leased epoch asks the keeper for a new one ({@code
 * IssueGate#epochExhausted}); the keeper takes its own role again at its next heartbeat, under the
 * state machine's own rules ({@link RoleApply}): a new epoch and topology version on the same node,
 * and nothing more issued in the old epoch (docs/architecture.md, "Sequencer failover").
 */
class RoleLeaseKeeperExhaustionTest {
  private static final RoleLeaseKeeper.Timing TIMING = RoleLeaseKeeper.Timing.DEFAULT;
  private static final int GLOBAL = Color.GLOBAL_ID;

  private long nowNs = 1_000_000_000L;
  private final MetadataStateMachine state = new MetadataStateMachine(t -> {});
  private final List<String> proposals = new ArrayList<>();

  /** When set, the next proposal applies but its answer is lost. */
  private boolean loseNextAnswer;

  /** When set, the next proposal does not reach the quorum. */
  private boolean loseNextProposal;

  /** The node's copy of the metadata; null: the committed state. */
  private Map<Integer, RoleLease> staleLeases;

  private Topology staleTopology;

  RoleLeaseKeeperExhaustionTest() {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(new NodeAddress(i, Kind.SEQUENCER, "127.0.0.1", 1000 + i));
    }
    nodes.add(new NodeAddress(3, Kind.REPLICA, "127.0.0.1", 1003));
    state.commitTopology(
        new Topology(
            1,
            nodes,
            List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, 0)),
            List.of(new Shard(0, GLOBAL, List.of(3)))));
  }

  private final RoleLeaseKeeper.Quorum quorum =
      new RoleLeaseKeeper.Quorum() {
        @Override
        public RoleCommand.Reply renew(int colorId, int nodeId, int epoch) {
          proposals.add("renew " + epoch);
          return propose(
              RoleCommand.encode(MetadataCommand.Kind.RENEW_ROLE, colorId, nodeId, epoch, 0, 0));
        }

        @Override
        public RoleCommand.Reply take(int colorId, int nodeId, RoleLease seen, int minEpoch) {
          proposals.add("take " + (seen == null ? "-" : seen.leaderNodeId() + "@" + seen.epoch()));
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
          return staleLeases != null ? staleLeases : state.leases();
        }

        @Override
        public Topology topology() {
          return staleTopology != null ? staleTopology : state.topology().orElseThrow();
        }

        @Override
        public List<Integer> responsiveFollowers() {
          return List.of();
        }

        @Override
        public void handLeadershipTo(int nodeId) {
          throw new AssertionError("no quorum leader in this test");
        }
      };

  private RoleCommand.Reply propose(byte[] entry) {
    if (loseNextProposal) {
      loseNextProposal = false;
      throw new MetadataUnavailableException("proposal lost");
    }
    ByteBuffer buf = ByteBuffer.wrap(entry);
    byte[] reply = RoleApply.apply(state, RoleCommand.decode(MetadataCommand.kind(buf), buf));
    if (loseNextAnswer) {
      loseNextAnswer = false;
      throw new MetadataUnavailableException("answer lost");
    }
    return RoleCommand.decodeReply(ByteBuffer.wrap(reply));
  }

  private RoleLeaseKeeper leaderOfEpochOne() {
    RoleLeaseKeeper keeper =
        new RoleLeaseKeeper(0, 1, List.of(0, 1, 2), quorum, () -> nowNs, TIMING);
    keeper.tick(); // node 0 is global's configured sequencer: it takes epoch 1
    assertThat(keeper.mayIssue(GLOBAL, 1)).isTrue();
    heartbeat(keeper);
    assertThat(proposals).containsExactly("take -", "renew 1");
    proposals.clear();
    return keeper;
  }

  private void heartbeat(RoleLeaseKeeper keeper) {
    nowNs += TIMING.heartbeat().toNanos();
    keeper.tick();
  }

  private Color global() {
    return state.topology().orElseThrow().color(GLOBAL).orElseThrow();
  }

  @Test
  void shouldTakeItsOwnRoleAgainInANewEpochWhenTheRoleReportsItsEpochExhausted() {
    RoleLeaseKeeper keeper = leaderOfEpochOne();
    long version = state.topology().orElseThrow().version();

    keeper.epochExhausted(GLOBAL, 1);
    keeper.epochExhausted(GLOBAL, 1); // the role asks again every few milliseconds
    assertThat(keeper.mayIssue(GLOBAL, 1)).as("the lease holds until the next heartbeat").isTrue();
    heartbeat(keeper);

    assertThat(proposals).as("a take instead of a renewal").containsExactly("take 0@1");
    assertThat(state.leases().get(GLOBAL)).isEqualTo(new RoleLease(GLOBAL, 0, 2, 0));
    assertThat(global().sequencerId()).isZero();
    assertThat(global().roleEpoch()).isEqualTo(2);
    assertThat(state.topology().orElseThrow().version()).isEqualTo(version + 1);
    assertThat(keeper.mayIssue(GLOBAL, 1)).as("the exhausted epoch is over").isFalse();
    assertThat(keeper.mayIssue(GLOBAL, 2)).isTrue();
    assertThat(keeper.tookEpoch(GLOBAL, 2)).isTrue();
    assertThat(keeper.exhaustionTakes()).isEqualTo(1);

    keeper.epochExhausted(GLOBAL, 1); // a late report of the old epoch, before the role adopted 2
    heartbeat(keeper);
    assertThat(proposals)
        .as("an old epoch's report is ignored")
        .containsExactly("take 0@1", "renew 2");
    assertThat(keeper.mayIssue(GLOBAL, 2)).isTrue();
    assertThat(keeper.exhaustionTakes()).isEqualTo(1);

    keeper.epochExhausted(GLOBAL, 2);
    heartbeat(keeper);
    assertThat(global().roleEpoch()).isEqualTo(3);
    assertThat(keeper.mayIssue(GLOBAL, 3)).isTrue();
    assertThat(keeper.exhaustionTakes()).isEqualTo(2);
  }

  @Test
  void shouldIssueNothingMoreInTheExhaustedEpochWhileTheTakeDoesNotGetThrough() {
    RoleLeaseKeeper keeper = leaderOfEpochOne();
    keeper.epochExhausted(GLOBAL, 1);

    loseNextProposal = true;
    heartbeat(keeper);
    assertThat(global().roleEpoch()).isEqualTo(1);
    assertThat(keeper.mayIssue(GLOBAL, 1)).isFalse();

    loseNextAnswer = true; // applied, answer lost: the keeper does not know it leads epoch 2
    heartbeat(keeper);
    assertThat(global().roleEpoch()).isEqualTo(2);
    assertThat(keeper.mayIssue(GLOBAL, 1)).isFalse();
    assertThat(keeper.mayIssue(GLOBAL, 2)).isFalse();

    heartbeat(keeper); // its copy names it leader of epoch 2, which it did not take: again
    assertThat(global().roleEpoch()).isEqualTo(3);
    assertThat(keeper.mayIssue(GLOBAL, 3)).isTrue();
    assertThat(proposals).containsExactly("take 0@1", "take 0@1", "take 0@2");
  }

  @Test
  void shouldStepDownWhenAnotherNodeTookTheRoleBeforeItsOwnTake() {
    RoleLeaseKeeper keeper = leaderOfEpochOne();
    // Its copy of the metadata still shows its own lease, but node 1 took the role meanwhile.
    staleLeases = state.leases();
    staleTopology = state.topology().orElseThrow();
    RoleLease seen = state.leases().get(GLOBAL);
    propose(
        RoleCommand.encode(
            MetadataCommand.Kind.TAKE_ROLE, GLOBAL, 1, seen.epoch(), seen.renewals(), 1));
    assertThat(state.leases().get(GLOBAL).leaderNodeId()).isEqualTo(1);

    keeper.epochExhausted(GLOBAL, 1);
    heartbeat(keeper);

    assertThat(proposals).containsExactly("take 0@1");
    assertThat(state.leases().get(GLOBAL)).isEqualTo(new RoleLease(GLOBAL, 1, 2, 0));
    assertThat(keeper.mayIssue(GLOBAL, 1)).isFalse();
    assertThat(keeper.mayIssue(GLOBAL, 2)).isFalse();
    assertThat(keeper.exhaustionTakes()).isZero();
  }
}
