package io.flexlog.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.quorum.QuorumConfig;
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
