package io.flexlog.server.control.quorum;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;

/**
 * How the metadata quorum sets up Apache Ratis (docs/architecture.md#metadata-quorum): the group
 * and its peers' ids, the server's properties (election timeouts, step-down wait, snapshots) and
 * the one-attempt clients that {@link MetadataQuorum} retries itself.
 */
final class QuorumRatis {
  /** One group per cluster; its id is fixed so that restarted nodes find their storage. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(
          UUID.nameUUIDFromBytes("flexlog-metadata-quorum".getBytes(StandardCharsets.UTF_8)));

  /**
   * Ratis' election timeout range. Wider than its default (150-300 ms) so that a loaded machine (GC
   * pauses, many JVMs on few cores) does not make leaders flap; a dead leader is still replaced
   * within about a second.
   */
  static final long ELECTION_TIMEOUT_MIN_MS = 400;

  static final long ELECTION_TIMEOUT_MAX_MS = 800;

  /**
   * How long a leader that stepped down because a majority stopped answering it waits before it
   * stands for election again. Ratis' default is 10 s, meant to let another peer win first. With
   * three nodes, one of them dead and the other one just restarted (its log behind, so it cannot
   * win, and slow to answer while it catches up), the leader steps down and nobody led the quorum
   * for those 10 s: role leases could not be renewed or taken, and appends stopped for about 12 s
   * after a kill of a role's leader (docs/operations.md, "Why some kills stopped appends for about
   * 12 s"). One election timeout still lets a caught-up peer, whose own timer fires within it, win
   * first. Ratis also takes it as the JVM pause after which a leader steps down; a pause that long
   * has let the followers' election timers run out anyway.
   */
  static final long LEADER_STEP_DOWN_WAIT_MS = ELECTION_TIMEOUT_MAX_MS;

  /**
   * How long one attempt may take before it is given up and tried again (on the leader this node
   * then knows): short, so that a request sent to a peer that just died moves on quickly.
   */
  static final long ATTEMPT_TIMEOUT_MS = 1000;

  static RaftPeerId peerId(int nodeId) {
    return RaftPeerId.valueOf("node-" + nodeId);
  }

  static RaftGroup group(QuorumConfig config) {
    List<RaftPeer> peers = new ArrayList<>();
    for (QuorumConfig.Peer peer : config.peers()) {
      peers.add(
          RaftPeer.newBuilder()
              .setId(peerId(peer.nodeId()))
              .setAddress(peer.raftAddress())
              .build());
    }
    return RaftGroup.valueOf(GROUP_ID, peers);
  }

  static RaftProperties serverProperties(
      QuorumConfig config, QuorumConfig.Peer self, Path storageDir) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    GrpcConfigKeys.Server.setHost(properties, self.host());
    GrpcConfigKeys.Server.setPort(properties, self.raftPort());
    RaftServerConfigKeys.setStorageDir(properties, List.of(storageDir.toFile()));
    RaftServerConfigKeys.Rpc.setTimeoutMin(
        properties, TimeDuration.valueOf(ELECTION_TIMEOUT_MIN_MS, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(
        properties, TimeDuration.valueOf(ELECTION_TIMEOUT_MAX_MS, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(
        properties, TimeDuration.valueOf(LEADER_STEP_DOWN_WAIT_MS, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, config.snapshotEntries());
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        properties, (int) Math.min(1024, config.snapshotEntries()));
    return properties;
  }

  /**
   * A client that makes one attempt per request ({@code MetadataQuorum} retries), sending first to
   * {@code leader} when this node knows the quorum's leader.
   */
  static RaftClient client(RaftGroup group, RaftPeerId leader) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        properties, TimeDuration.valueOf(ATTEMPT_TIMEOUT_MS, TimeUnit.MILLISECONDS));
    RaftClient.Builder builder =
        RaftClient.newBuilder()
            .setRaftGroup(group)
            .setProperties(properties)
            .setRetryPolicy(RetryPolicies.noRetry());
    if (leader != null) {
      builder.setLeaderId(leader);
    }
    return builder.build();
  }

  private QuorumRatis() {}
}
