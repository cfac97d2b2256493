package io.flexlog.server.control.quorum;

import io.flexlog.core.model.Topology;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The metadata quorum of the data-path simulation, as one in-memory copy of the production state
 * machine ({@link MetadataStateMachine}) that applies role entries with the production rules
 * ({@link RoleApply}), atomically, one at a time. Lives in this package because those are
 * package-private; the simulation decides which proposals reach it, which answers are lost and when
 * each node's copy of the metadata catches up (docs/testing.md).
 */
public final class SimQuorumBridge {
  private final MetadataStateMachine state = new MetadataStateMachine(t -> {});

  public SimQuorumBridge(Topology initial) {
    state.commitTopology(initial);
  }

  /** Applies a RENEW entry; the reply says whether it applied and the lease afterwards. */
  public RoleCommand.Reply renew(int colorId, int nodeId, int epoch) {
    return apply(RoleCommand.encode(MetadataCommand.Kind.RENEW_ROLE, colorId, nodeId, epoch, 0, 0));
  }

  /** Applies a TAKE entry for a node that saw {@code seen} lapse (null: no lease yet). */
  public RoleCommand.Reply take(int colorId, int nodeId, RoleLease seen, int minEpoch) {
    return apply(
        RoleCommand.encode(
            MetadataCommand.Kind.TAKE_ROLE,
            colorId,
            nodeId,
            seen == null ? -1 : seen.epoch(),
            seen == null ? 0 : seen.renewals(),
            minEpoch));
  }

  private RoleCommand.Reply apply(byte[] entry) {
    ByteBuffer buf = ByteBuffer.wrap(entry);
    byte[] reply = RoleApply.apply(state, RoleCommand.decode(MetadataCommand.kind(buf), buf));
    return RoleCommand.decodeReply(ByteBuffer.wrap(reply));
  }

  /** The committed leases, by color id (an immutable copy). */
  public Map<Integer, RoleLease> leases() {
    return state.leases();
  }

  /** The committed topology. */
  public Topology topology() {
    return state.topology().orElseThrow();
  }
}
