package io.flexlog.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.quorum.QuorumConfig;
import io.flexlog.server.control.quorum.RoleLeaseKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterFileAdminTest {
  @TempDir Path dir;

  private ClusterFile load(String nodes) throws Exception {
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(
        file,
        "cluster:\n  nodes:\n"
            + nodes
            + "    - {id: 3, kind: replica, host: 127.0.0.1, port: 7073}\n"
            + "  colors:\n"
            + "    - {id: 0, name: global, sequencer: 0}\n"
            + "    - {id: 1, name: left, parent: global, sequencer: 1}\n"
            + "  shards:\n"
            + "    - {id: 0, color: left, replicas: [3]}\n");
    return ClusterFile.load(file);
  }

  @Test
  void shouldReadTheAdminPortOfTheRootSequencerNode() throws Exception {
    ClusterFile file =
        load(
            "    - {id: 0, kind: sequencer, host: 10.1.1.1, port: 7070, admin-port: 7090}\n"
                + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071}\n");

    assertThat(file.admin()).contains(new HostPort("10.1.1.1", 7090));
    assertThat(file.rootSequencerId()).isZero();
    assertThat(file.topology().color("left").orElseThrow().parentId()).isZero();
  }

  @Test
  void shouldHaveNoAdminServiceWithoutAnAdminPort() throws Exception {
    ClusterFile file =
        load(
            "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070}\n"
                + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071}\n");

    assertThat(file.admin()).isEmpty();
  }

  @Test
  void shouldMakeTheNodesWithAnAdminPortTheMetadataQuorum() throws Exception {
    ClusterFile file =
        load(
            "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090}\n"
                + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071, admin-port: 7092,"
                + " metadata-port: 7099}\n"
                + "    - {id: 2, kind: sequencer, host: 127.0.0.1, port: 7072, admin-port: 7094}\n");

    QuorumConfig quorum = file.quorum().orElseThrow();
    assertThat(quorum.peers())
        .containsExactly(
            new QuorumConfig.Peer(0, "127.0.0.1", 7091, 7090),
            new QuorumConfig.Peer(1, "127.0.0.1", 7099, 7092),
            new QuorumConfig.Peer(2, "127.0.0.1", 7095, 7094));
    assertThat(quorum.requestTimeout()).isEqualTo(QuorumConfig.DEFAULT_REQUEST_TIMEOUT);
  }

  @Test
  void shouldTurnSequencerFailoverOnByDefaultWithThreeQuorumSequencers() throws Exception {
    ClusterFile file = load(threeQuorumSequencers());

    assertThat(file.failover()).contains(RoleLeaseKeeper.Timing.DEFAULT);
  }

  @Test
  void shouldKeepSequencerFailoverOffWhenTheFileSaysFalse() throws Exception {
    Path file = dir.resolve("off.yaml");
    Files.writeString(
        file,
        "cluster:\n  sequencer-failover: false\n  nodes:\n"
            + threeQuorumSequencers()
            + "    - {id: 3, kind: replica, host: 127.0.0.1, port: 7073}\n"
            + "  colors:\n    - {id: 0, name: global, sequencer: 0}\n"
            + "  shards:\n    - {id: 0, color: global, replicas: [3]}\n");

    assertThat(ClusterFile.load(file).failover()).isEmpty();
  }

  @Test
  void shouldLeaveSequencerFailoverOffByDefaultWithFewerThanThreeQuorumSequencers()
      throws Exception {
    ClusterFile single =
        load(
            "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090}\n"
                + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071}\n");
    // Three quorum nodes, but only one of them a sequencer: no backup could take a role.
    Path mixed = dir.resolve("mixed.yaml");
    Files.writeString(
        mixed,
        "cluster:\n  nodes:\n"
            + "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090}\n"
            + "    - {id: 1, kind: replica, host: 127.0.0.1, port: 7071, admin-port: 7092}\n"
            + "    - {id: 2, kind: replica, host: 127.0.0.1, port: 7072, admin-port: 7094}\n"
            + "    - {id: 3, kind: replica, host: 127.0.0.1, port: 7073}\n"
            + "  colors:\n    - {id: 0, name: global, sequencer: 0}\n"
            + "  shards:\n    - {id: 0, color: global, replicas: [1, 2, 3]}\n");

    assertThat(single.quorum()).isPresent();
    assertThat(single.failover()).isEmpty();
    assertThat(ClusterFile.load(mixed).quorum().orElseThrow().peers()).hasSize(3);
    assertThat(ClusterFile.load(mixed).failover()).isEmpty();
  }

  @Test
  void shouldRefuseSequencerFailoverWithoutAMetadataQuorum() throws Exception {
    Path file = dir.resolve("static.yaml");
    Files.writeString(
        file,
        "cluster:\n  sequencer-failover: true\n  nodes:\n"
            + "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070}\n"
            + "    - {id: 3, kind: replica, host: 127.0.0.1, port: 7073}\n"
            + "  colors:\n    - {id: 0, name: global, sequencer: 0}\n"
            + "  shards:\n    - {id: 0, color: global, replicas: [3]}\n");

    assertThatThrownBy(() -> ClusterFile.load(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cluster.sequencer-failover needs a metadata quorum");
  }

  @Test
  void shouldRefuseSequencerFailoverWithASequencerNodeOutsideTheQuorum() throws Exception {
    String nodes =
        threeQuorumSequencers()
            + "    - {id: 4, kind: sequencer, host: 127.0.0.1, port: 7076}\n"
            + "    - {id: 3, kind: replica, host: 127.0.0.1, port: 7073}\n";
    String rest =
        "  colors:\n    - {id: 0, name: global, sequencer: 0}\n"
            + "    - {id: 1, name: left, parent: global, sequencer: 4}\n"
            + "  shards:\n    - {id: 0, color: left, replicas: [3]}\n";
    Path byDefault = dir.resolve("default.yaml");
    Files.writeString(byDefault, "cluster:\n  nodes:\n" + nodes + rest);
    Path explicit = dir.resolve("explicit.yaml");
    Files.writeString(explicit, "cluster:\n  sequencer-failover: true\n  nodes:\n" + nodes + rest);

    // Node 4's color would have no backup: failover stays off unless asked for, then is refused.
    assertThat(ClusterFile.load(byDefault).failover()).isEmpty();
    assertThatThrownBy(() -> ClusterFile.load(explicit))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sequencer node(s) [4] have no admin-port");
  }

  private static String threeQuorumSequencers() {
    return "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090}\n"
        + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071, admin-port: 7092}\n"
        + "    - {id: 2, kind: sequencer, host: 127.0.0.1, port: 7072, admin-port: 7094}\n";
  }

  @Test
  void shouldRejectAnEvenNumberOfQuorumNodes() {
    assertThatThrownBy(
            () ->
                load(
                    "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090}\n"
                        + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071,"
                        + " admin-port: 7092}\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs an odd number of nodes");
  }

  @Test
  void shouldRejectAMetadataPortThatClashesWithANodePort() {
    assertThatThrownBy(
            () ->
                load(
                    "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090,"
                        + " metadata-port: 7073}\n"
                        + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071}\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metadata-port of node 0: 127.0.0.1:7073 is already used");
  }

  @Test
  void shouldRejectAMetadataPortWithoutAnAdminPort() {
    assertThatThrownBy(
            () ->
                load(
                    "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070}\n"
                        + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071,"
                        + " metadata-port: 7090}\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node 1 has no admin-port");
  }

  @Test
  void shouldRejectUnknownKeysInANodeEntry() {
    assertThatThrownBy(
            () ->
                load(
                    "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, adminport: 1}\n"
                        + "    - {id: 1, kind: sequencer, host: 127.0.0.1, port: 7071}\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown key 'adminport' in cluster.nodes[]");
  }
}
