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
}
