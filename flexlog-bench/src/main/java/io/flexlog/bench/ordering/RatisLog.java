package io.flexlog.bench.ordering;

/** The Raft log of the Ratis counter's peers ({@code --ratis-log}). */
public enum RatisLog implements CliValue {
  /**
   * Ratis' segmented log in each peer's storage directory, with its default sync policy: an entry
   * is committed once a majority has written and synced it.
   */
  DISK,
  /**
   * Ratis' in-memory log: consensus and state-machine cost only, nothing survives a restart. The
   * most favourable setting for the peer.
   */
  MEMORY;
}
