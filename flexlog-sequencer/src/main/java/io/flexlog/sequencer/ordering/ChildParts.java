package io.flexlog.sequencer.ordering;

import java.util.Arrays;

/**
 * Range requests from child sequencer nodes gathered for one color: who asked (child node id and
 * incarnation), under which request id, for how many SNs, and once known the first SN of the range
 * each was given. Arrival order is kept, because ranges are handed out in that order.
 *
 * <p>Primitive arrays reused across turns and grown by doubling. Not thread-safe: owned by the
 * node's event loop.
 */
final class ChildParts {
  private int[] nodes = new int[8];
  private int[] incarnations = new int[8];
  private long[] requestIds = new long[8];
  private int[] counts = new int[8];
  private long[] firstSns = new long[8];
  private int size;
  private long total;

  void add(int childNodeId, int incarnation, long requestId, int count) {
    if (size == nodes.length) {
      int grown = size * 2;
      nodes = Arrays.copyOf(nodes, grown);
      incarnations = Arrays.copyOf(incarnations, grown);
      requestIds = Arrays.copyOf(requestIds, grown);
      counts = Arrays.copyOf(counts, grown);
      firstSns = Arrays.copyOf(firstSns, grown);
    }
    nodes[size] = childNodeId;
    incarnations[size] = incarnation;
    requestIds[size] = requestId;
    counts[size] = count;
    firstSns[size] = 0L;
    size++;
    total += count;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The sum of the counts of every part. */
  long totalCount() {
    return total;
  }

  int node(int i) {
    return nodes[i];
  }

  int incarnation(int i) {
    return incarnations[i];
  }

  long requestId(int i) {
    return requestIds[i];
  }

  int count(int i) {
    return counts[i];
  }

  /** The first SN of part {@code i}'s range, 0 until {@link #assign} gave it one. */
  long firstSn(int i) {
    return firstSns[i];
  }

  void assign(int i, long firstSn) {
    firstSns[i] = firstSn;
  }

  /**
   * Moves every part without a first SN to the end of {@code other}, in arrival order; the parts
   * with one stay here, in order.
   */
  void moveUnassignedTo(ChildParts other) {
    int kept = 0;
    long keptTotal = 0;
    for (int i = 0; i < size; i++) {
      if (firstSns[i] == 0L) {
        other.add(nodes[i], incarnations[i], requestIds[i], counts[i]);
      } else {
        copy(i, kept);
        keptTotal += counts[i];
        kept++;
      }
    }
    size = kept;
    total = keptTotal;
  }

  /**
   * Removes the parts of child {@code childNodeId} in {@code incarnation} without a first SN whose
   * request id is below {@code below}; the others keep their order.
   *
   * @return how many were removed
   */
  int removeUnassignedBelow(int childNodeId, int incarnation, long below) {
    int kept = 0;
    long keptTotal = 0;
    for (int i = 0; i < size; i++) {
      if (firstSns[i] == 0L
          && nodes[i] == childNodeId
          && incarnations[i] == incarnation
          && requestIds[i] < below) {
        continue;
      }
      copy(i, kept);
      keptTotal += counts[i];
      kept++;
    }
    int removed = size - kept;
    size = kept;
    total = keptTotal;
    return removed;
  }

  // Part `from` overwrites part `to` (to <= from), for the compactions above.
  private void copy(int from, int to) {
    nodes[to] = nodes[from];
    incarnations[to] = incarnations[from];
    requestIds[to] = requestIds[from];
    counts[to] = counts[from];
    firstSns[to] = firstSns[from];
  }

  void clear() {
    size = 0;
    total = 0;
  }
}
