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
}
