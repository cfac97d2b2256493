package io.flexlog.bench.ordering;

/**
 * How the Ratis counter's load clients turn their window into Raft requests ({@code
 * --ratis-requests}).
 */
public enum RatisRequests implements CliValue {
  /**
   * The same batching as FlexLog's load clients: the window is issued as one request of {@code W}
   * increments, and the SNs answered by one reply are replaced by one request of that many
   * increments, as FlexLog's clients replace the tokens answered in one read turn by one
   * ORDER_REQUEST. One Raft log entry then orders a whole batch, as a consensus-based sequencer
   * that batches (Scalog, Boki) would.
   */
  BATCHED,
  /** One increment per request, {@code W} requests in flight: one Raft log entry per SN. */
  SINGLE;
}
