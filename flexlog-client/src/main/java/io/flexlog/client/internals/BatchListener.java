package io.flexlog.client.internals;

import io.flexlog.core.error.FlexLogException;

/**
 * Told the outcome of each record of a batch handed to {@link ClientCore#appendBatch}: exactly one
 * call per record, on the client's event loop, so implementations must not block.
 */
public interface BatchListener {
  /** Every replica of the shard acknowledged record {@code index} at {@code sn}. */
  void onAppended(int index, long sn);

  /** Record {@code index} failed; the other records of the batch are not affected. */
  void onFailed(int index, FlexLogException error);

  /**
   * {@code records} records of the batch, not yet acknowledged by every replica, are sent again
   * (the request timeout passed, or the topology was fetched again).
   */
  default void onResent(int records) {}
}
