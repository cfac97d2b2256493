package io.flexlog.replica.storage;

import java.util.List;

/**
 * What a replica keeps about its protocol state across restarts (docs/architecture.md#sync-phase,
 * "Durable sync points"): per (shard, color) log, its <em>sync point</em>, the SN up to which every
 * SN assigned to the shard is stored in the log or known to be a hole, with what the log held up to
 * it when the point was taken (to check at start that the log on disk is the one the point speaks
 * of), and the log's join marks (docs/architecture.md#join-marks).
 *
 * @param nodeId the replica node that took it
 * @param entries one per (shard, color) log
 */
public record SyncPointTable(int nodeId, List<Entry> entries) {
  public SyncPointTable {
    entries = List.copyOf(entries);
  }

  /** No sync points, no marks: a replica starts blind from epoch 1. */
  public static SyncPointTable empty(int nodeId) {
    return new SyncPointTable(nodeId, List.of());
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * The same table without its sync points (0), keeping the join marks: what a replica may still
   * trust when the log may have lost entries the points speak of.
   */
  public SyncPointTable withoutPoints() {
    return new SyncPointTable(
        nodeId,
        entries.stream()
            .map(e -> new Entry(e.shardId(), e.colorId(), 0, 0, 0, 0, e.marks()))
            .toList());
  }

  /**
   * One (shard, color) log.
   *
   * @param syncPoint every SN of the color assigned to the shard at or below it is stored in the
   *     log or a hole; 0 for none
   * @param trimPoint the color's trim point when the sync point was taken
   * @param heldCount how many committed entries the log held in {@code (trimPoint, syncPoint]}
   * @param lastHeldSn the largest SN the log held at or below {@code syncPoint}, 0 for none
   * @param marks the join marks, {@code (topology version, mark SN)} pairs in arrival order
   */
  public record Entry(
      int shardId,
      int colorId,
      long syncPoint,
      long trimPoint,
      long heldCount,
      long lastHeldSn,
      long[] marks) {
    public Entry {
      if ((marks.length & 1) != 0) {
        throw new IllegalArgumentException("marks come in (version, SN) pairs");
      }
      marks = marks.clone();
    }

    public int markCount() {
      return marks.length / 2;
    }

    public long markVersion(int i) {
      return marks[2 * i];
    }

    public long markSn(int i) {
      return marks[2 * i + 1];
    }

    @Override
    public long[] marks() {
      return marks.clone();
    }
  }
}
