package io.flexlog.server.control.quorum;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * How the metadata state machine applies role entries ({@link RoleCommand}; docs/architecture.md,
 * "Sequencer failover"). Deterministic: every quorum node decides the same from the same state.
 *
 * <ul>
 *   <li>RENEW applies while the lease is exactly (node, epoch): its renewal count grows.
 *   <li>TAKE applies when the color exists, the node is a sequencer node, and either the node
 *       already leads the role (a restart or an exhausted epoch: its old incarnation issues nothing
 *       more), or the lease is still the one the proposer saw lapse (epoch and renewal count), or
 *       there is no lease yet and the node is the color's designated sequencer. It gives the role
 *       the epoch {@code max(old epoch + 1, minimum epoch)} and commits a new topology version in
 *       which the color names the node and that epoch.
 * </ul>
 */
final class RoleApply {
  private RoleApply() {}

  static byte[] apply(MetadataStateMachine state, RoleCommand.Entry entry) {
    RoleLease current = state.leases().get(entry.colorId());
    Topology topology = state.topology().orElse(null);
    boolean applied =
        switch (entry.kind()) {
          case RENEW_ROLE -> renew(state, current, entry);
          case TAKE_ROLE -> take(state, topology, current, entry);
          default -> throw new IllegalArgumentException("not a role entry: " + entry.kind());
        };
    return RoleCommand.encodeReply(applied, entry.colorId(), state.leases().get(entry.colorId()));
  }

  private static boolean renew(
      MetadataStateMachine state, RoleLease current, RoleCommand.Entry entry) {
    if (current == null
        || current.leaderNodeId() != entry.nodeId()
        || current.epoch() != entry.epoch()) {
      return false;
    }
    state.putLease(
        new RoleLease(
            current.colorId(), current.leaderNodeId(), current.epoch(), current.renewals() + 1));
    return true;
  }

  private static boolean take(
      MetadataStateMachine state, Topology topology, RoleLease current, RoleCommand.Entry entry) {
    if (topology == null) {
      return false;
    }
    Color color = topology.color(entry.colorId()).orElse(null);
    NodeAddress node = topology.nodes().get(entry.nodeId());
    if (color == null || node == null || node.kind() != NodeAddress.Kind.SEQUENCER) {
      return false;
    }
    boolean allowed =
        current == null
            ? entry.epoch() == -1 && color.sequencerId() == entry.nodeId()
            : current.leaderNodeId() == entry.nodeId()
                || (current.epoch() == entry.epoch() && current.renewals() == entry.renewals());
    if (!allowed) {
      return false;
    }
    int oldEpoch = Math.max(current == null ? 0 : current.epoch(), color.roleEpoch());
    if (oldEpoch == Integer.MAX_VALUE) {
      return false;
    }
    int epoch = Math.max(oldEpoch + 1, entry.minEpoch());
    state.putLease(new RoleLease(color.id(), entry.nodeId(), epoch, 0));
    List<Color> colors = new ArrayList<>();
    for (Color c : topology.colors()) {
      colors.add(c.id() == color.id() ? c.withRole(entry.nodeId(), epoch) : c);
    }
    state.commitTopology(
        new Topology(
            topology.version() + 1,
            List.copyOf(topology.nodes().values()),
            colors,
            topology.shards()));
    return true;
  }
}
