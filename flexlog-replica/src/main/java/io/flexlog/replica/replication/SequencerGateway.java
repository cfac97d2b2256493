package io.flexlog.replica.replication;

/**
 * Where a replica's order requests go: the sequencer node each shard is attached to. Implemented
 * over the data-plane connection by {@code SequencerLink}; tests substitute their own.
 */
public interface SequencerGateway {
  /**
   * Queues one ORDER_REQUEST for the batch's tokens to the sequencer of the batch's shard. Sent on
   * {@link #flush()}. A request that cannot be sent (link down) is dropped: the replica re-sends
   * every unassigned token when the link comes back.
   */
  void send(OrderRequestBatch batch, int replicaNodeId);

  /** Flushes queued requests to the network. */
  void flush();
}
