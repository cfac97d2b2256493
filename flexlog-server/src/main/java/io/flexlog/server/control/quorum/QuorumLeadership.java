package io.flexlog.server.control.quorum;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leadership of this node's Ratis group, seen from this node, and handing it to another member
 * (docs/architecture.md, "Sequencer failover": the quorum's leader keeps away from role leaders, so
 * that a role leader's crash never also needs a quorum election before a backup can take the role).
 *
 * <p>Threading: any thread; {@link #transferTo} blocks up to {@link #TRANSFER_TIMEOUT_MS}.
 */
final class QuorumLeadership {
  private static final Logger LOG = LoggerFactory.getLogger(QuorumLeadership.class);

  /** How long Ratis may take to bring the new leader up to date and elect it. */
  static final long TRANSFER_TIMEOUT_MS = 1000;

  /** A follower that answered the leader within this many milliseconds counts as responsive. */
  static final long RESPONSIVE_MS = 300;

  /** A follower whose commit index trails the leader's by more is not caught up. */
  static final long CAUGHT_UP_ENTRIES = 32;

  private final int selfId;
  private final RaftServer server;
  private final RaftGroup group;

  QuorumLeadership(int selfId, RaftServer server, RaftGroup group) {
    this.selfId = selfId;
    this.server = server;
    this.group = group;
  }

  /**
   * The members that answered this node within {@link #RESPONSIVE_MS} and whose log is caught up
   * ({@link #caughtUp}), when this node leads the group; empty when it does not. A node that has
   * just restarted answers at once but may still be far behind: handed the quorum, Ratis would wait
   * for it to catch up (up to {@link #TRANSFER_TIMEOUT_MS}) while no lease is renewed, and a backup
   * would take a role from a healthy leader (docs/architecture.md#sequencer-failover).
   */
  List<Integer> responsiveFollowers() {
    RaftServer.Division division;
    RoleInfoProto role;
    try {
      division = server.getDivision(group.getGroupId());
      role = division.getInfo().getRoleInfoProto();
    } catch (IOException e) {
      return List.of();
    }
    if (!role.hasLeaderInfo()) {
      return List.of();
    }
    Map<String, Long> commitIndex = new HashMap<>();
    for (CommitInfoProto info : division.getCommitInfos()) {
      commitIndex.put(info.getServer().getId().toStringUtf8(), info.getCommitIndex());
    }
    long leaderCommit = division.getRaftLog().getLastCommittedIndex();
    List<Integer> responsive = new ArrayList<>();
    for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
      String id = follower.getId().getId().toStringUtf8();
      if (id.startsWith("node-")
          && caughtUp(
              follower.getLastRpcElapsedTimeMs(),
              commitIndex.getOrDefault(id, -1L),
              leaderCommit)) {
        responsive.add(Integer.parseInt(id.substring("node-".length())));
      }
    }
    return responsive;
  }

  /**
   * A follower may take the quorum when it answered within {@link #RESPONSIVE_MS} and the commit
   * index it last reported is within {@link #CAUGHT_UP_ENTRIES} of the leader's (every lease
   * renewal is an entry, so the log of a follower that is up to date trails by a few).
   */
  static boolean caughtUp(long lastRpcElapsedMs, long followerCommitIndex, long leaderCommitIndex) {
    return lastRpcElapsedMs <= RESPONSIVE_MS
        && followerCommitIndex >= 0
        && leaderCommitIndex - followerCommitIndex <= CAUGHT_UP_ENTRIES;
  }

  /**
   * This node's view of the group's leadership: the Raft term while a leader is known to it, -1
   * while none is (an election, a hand-off). It changes whenever the leadership changes.
   */
  long leadershipView() {
    try {
      RaftServer.Division division = server.getDivision(group.getGroupId());
      return division.getInfo().getLeaderId() == null ? -1 : division.getInfo().getCurrentTerm();
    } catch (IOException e) {
      return -1;
    }
  }

  private boolean leads() {
    try {
      return server.getDivision(group.getGroupId()).getInfo().isLeader();
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Asks Ratis to make {@code nodeId} the group's leader (this node must lead it now).
   *
   * @return whether the leadership moved
   */
  boolean transferTo(int nodeId) {
    try (RaftClient client = QuorumRatis.client(group, QuorumRatis.peerId(selfId))) {
      RaftClientReply reply =
          client.admin().transferLeadership(QuorumRatis.peerId(nodeId), TRANSFER_TIMEOUT_MS);
      if (!reply.isSuccess()) {
        LOG.info(
            "node {}: handing the metadata quorum's leadership to node {} failed: {}",
            selfId,
            nodeId,
            reply.getException());
      }
      return reply.isSuccess();
    } catch (IOException e) {
      if (!leads()) {
        return true; // the reply was lost as the leadership moved (its stream is cancelled)
      }
      LOG.info(
          "node {}: handing the metadata quorum's leadership to node {} failed: {}",
          selfId,
          nodeId,
          e.toString());
      return false;
    }
  }
}
