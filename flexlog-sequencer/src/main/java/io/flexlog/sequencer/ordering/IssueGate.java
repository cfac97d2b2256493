package io.flexlog.sequencer.ordering;

/**
 * Whether a role may issue SNs now (docs/architecture.md, "Sequencer failover"): with the metadata
 * quorum, only while this node holds the role's lease in the role's epoch. Asked once per color per
 * turn that has work, on the owning thread; implementations must be cheap and thread-safe.
 */
@FunctionalInterface
public interface IssueGate {
  /** A role that is not managed by leases issues whenever it has work. */
  IssueGate ALWAYS = (colorId, epoch) -> true;

  boolean mayIssue(int colorId, int epoch);

  /**
   * Whether this process took the role in {@code epoch} (or is taking it now), so that it may have
   * issued or may still issue SNs in it. False for an epoch an earlier process of this node took (a
   * restart): SNs of that epoch were issued by that process, and this one only ever issues in a
   * larger epoch (docs/architecture.md#sequencer-failover). A role not managed by leases took every
   * epoch it is in.
   */
  default boolean tookEpoch(int colorId, int epoch) {
    return true;
  }

  /**
   * The role of {@code colorId} has no counter left in its leased {@code epoch} for its work: it
   * holds that work and issues nothing more in the epoch, until a topology gives it a larger one.
   * The gate's lease keeper takes the role again (a new epoch on the same node,
   * docs/architecture.md#sequencer-failover). Called on the owning thread, again every few
   * milliseconds while the role waits; must be cheap. A role not managed by leases moves to a new
   * epoch by itself and never calls it.
   */
  default void epochExhausted(int colorId, int epoch) {}
}
