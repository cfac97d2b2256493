package io.flexlog.replica.atomic;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The atomic groups this replica knows: the unsettled ones (neither finished nor aborted durably:
 * their staging entries are still needed) and the settled ones, oldest first, remembered to answer
 * late COMMIT_GROUP retries until their retention ends or too many are remembered.
 *
 * <p>Threading: confined to the replica's event loop.
 */
final class GroupTable {
  private final long retentionNs;
  private final int retentionCount;

  private final Map<GroupId, StagedGroup> groups = new HashMap<>();
  private final Set<StagedGroup> unsettled = new LinkedHashSet<>();
  private final ArrayDeque<StagedGroup> settled = new ArrayDeque<>();

  GroupTable(AtomicConfig config) {
    this.retentionNs = config.resultRetention().toNanos();
    this.retentionCount = config.resultRetentionCount();
  }

  /** The group with this id, or null if this replica does not know it (or forgot it). */
  StagedGroup get(long high, long low) {
    return groups.get(new GroupId(high, low));
  }

  /** The group with this id, created (not yet unsettled) if this replica does not know it. */
  StagedGroup getOrCreate(long high, long low, int brokerShard, int memberCount) {
    return groups.computeIfAbsent(
        new GroupId(high, low), id -> new StagedGroup(high, low, brokerShard, memberCount));
  }

  int size() {
    return groups.size();
  }

  boolean isEmpty() {
    return groups.isEmpty();
  }

  /** Every known group, in no particular order. */
  Collection<StagedGroup> all() {
    return groups.values();
  }

  /** Groups whose staging entries are still needed, in the order they became unsettled. */
  Set<StagedGroup> unsettled() {
    return unsettled;
  }

  void addUnsettled(StagedGroup group) {
    unsettled.add(group);
  }

  /**
   * The group's DONE or ABORTED entry is durable: remember it for the retention from {@code nowNs},
   * forgetting what expired meanwhile.
   */
  void settle(StagedGroup group, long nowNs) {
    group.settledNs = nowNs;
    unsettled.remove(group);
    settled.add(group);
    forgetExpired(nowNs);
  }

  /** Recovered settled groups, already sorted by the SN of their DONE or ABORTED entry. */
  void addSettled(List<StagedGroup> recovered) {
    settled.addAll(recovered);
  }

  /** Forgets settled groups past their retention, and the oldest beyond the count limit. */
  void forgetExpired(long nowNs) {
    while (!settled.isEmpty()
        && (settled.size() > retentionCount
            || nowNs - settled.peekFirst().settledNs >= retentionNs)) {
      forget(settled.pollFirst());
    }
  }

  void forget(StagedGroup group) {
    groups.remove(new GroupId(group.groupHigh, group.groupLow));
    unsettled.remove(group);
  }

  /**
   * The highest staging SN below every entry still needed, at most {@code lastSn}: the first entry
   * of an unsettled group, or the DONE / ABORTED entry of the oldest remembered group (so that its
   * answer survives a restart within its retention). Every entry at or below it belongs to a
   * forgotten group, or is a member or END of a remembered one.
   */
  long reclaimableUpTo(long lastSn) {
    long point = lastSn;
    for (StagedGroup group : unsettled) {
      point = Math.min(point, group.firstStagingSn - 1);
    }
    if (!settled.isEmpty() && settled.peekFirst().settleSn > 0) {
      point = Math.min(point, settled.peekFirst().settleSn - 1);
    }
    return point;
  }
}
