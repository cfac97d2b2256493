package io.flexlog.sequencer.ordering;

/**
 * Told about every SN a hosted role issues, in issue order: the deterministic simulations check
 * their invariants with it. Called on the node's event loop.
 */
@FunctionalInterface
public interface IssueObserver {
  void onIssued(int colorId, long firstSn, int count);
}
