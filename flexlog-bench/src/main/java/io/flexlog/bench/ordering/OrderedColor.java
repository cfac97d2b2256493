package io.flexlog.bench.ordering;

/** Which color the load clients ask SNs of ({@code --color}). */
public enum OrderedColor implements CliValue {
  /**
   * {@code global}, ordered by the root: requests climb from the leaf to the root (total order
   * across every shard).
   */
  ROOT,
  /**
   * The color each client's shard is attached to, ordered by the deepest sequencer of its branch
   * (partial order: one order per leaf, the paper's FlexLog-P).
   */
  LEAF;
}
