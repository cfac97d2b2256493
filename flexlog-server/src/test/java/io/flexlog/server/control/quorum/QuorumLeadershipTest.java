package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which followers may take the metadata quorum's leadership
 * (docs/architecture.md#sequencer-failover): only responsive ones whose log is caught up. A
 * restarted node answered at once with its log 582 entries behind (690 against 1,272) in a run of
 * TreeFailoverProcessTest; handed the quorum, Ratis waited for it while no lease was renewed, and a
 * backup took a role from a healthy leader. The wiring to Ratis is covered by MetadataQuorumTest's
 * hand-off test.
 */
class QuorumLeadershipTest {
  @Test
  void shouldCountAResponsiveFollowerWhoseLogTrailsByAFewEntries() {
    assertThat(QuorumLeadership.caughtUp(20, 1_270, 1_272)).isTrue();
    assertThat(QuorumLeadership.caughtUp(QuorumLeadership.RESPONSIVE_MS, 1_272, 1_272)).isTrue();
    assertThat(QuorumLeadership.caughtUp(0, 1_272 - QuorumLeadership.CAUGHT_UP_ENTRIES, 1_272))
        .isTrue();
  }

  @Test
  void shouldNotCountAFollowerThatJustRestartedFarBehind() {
    assertThat(QuorumLeadership.caughtUp(5, 690, 1_272)).isFalse();
    assertThat(QuorumLeadership.caughtUp(5, 1_272 - QuorumLeadership.CAUGHT_UP_ENTRIES - 1, 1_272))
        .isFalse();
  }

  @Test
  void shouldNotCountASilentFollowerOrOneWithoutACommitIndex() {
    assertThat(QuorumLeadership.caughtUp(QuorumLeadership.RESPONSIVE_MS + 1, 1_272, 1_272))
        .isFalse();
    assertThat(QuorumLeadership.caughtUp(5, -1, 0)).isFalse();
  }
}
