package io.flexlog.client.internals;

/**
 * Request id ranges, one per role, so that an ERROR frame finds its request by id alone. Appends
 * use their token's sequence (from 1, below {@link #ATOMIC_BASE}); the other roles count up from
 * their base and never reach the next one.
 *
 * <pre>
 *   [1, 2^60)          appends (token sequence)
 *   [2^60, 2^61)       atomic groups: one id for the stages, then one per broker replica's commit
 *   [2^61, 3 * 2^60)   subscription streams
 *   [3 * 2^60, 2^62)   trims, one per replica node
 *   [2^62, 3 * 2^61)   reads, one per shard
 *   [3 * 2^61, ...)    tail queries, one per node asked
 * </pre>
 */
final class RequestIds {
  static final long ATOMIC_BASE = 1L << 60;
  static final long SUBSCRIPTION_BASE = 1L << 61;
  static final long TRIM_BASE = 3L << 60;
  static final long READ_BASE = 1L << 62;
  static final long TAIL_BASE = 3L << 61;

  private RequestIds() {}
}
