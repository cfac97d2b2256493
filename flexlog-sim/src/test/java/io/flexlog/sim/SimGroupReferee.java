package io.flexlog.sim;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.CommitFailedException;
import io.flexlog.client.consumer.internals.GroupRecord;
import io.flexlog.client.consumer.internals.GroupState;
import io.flexlog.core.model.Sn;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The consumer group's invariants in {@link SimGroup} (docs/testing.md, "Consumer groups in the
 * simulation"): a referee {@link GroupState} applies the group log in SN order as the first member
 * reads each record, and every member must read the same records and reach the same state after
 * each (GROUP_AGREEMENT). Besides it keeps who read which shard under which generation
 * (GROUP_ONE_OWNER), where each commit's positions came from, to decide on its own whether the log
 * must accept it (GROUP_FENCING), the committed positions (GROUP_POSITIONS_MONOTONIC) and what each
 * member processed (GROUP_SHARD_ORDER, and at the end GROUP_PROCESSED_ALL).
 */
final class SimGroupReferee {
  private final SimWorld world;
  final GroupState state = new GroupState();
  private final TreeMap<Long, GroupRecord> records = new TreeMap<>();
  private final Map<Long, GroupState.Snapshot> states = new HashMap<>();

  /** Who read a shard under a generation: "color/shard@generation" to member. */
  private final Map<String, String> claims = new HashMap<>();

  /**
   * Each commit's shards with the generation since which its member owned each, by "member#seq".
   */
  private final Map<String, Map<ColorShard, Long>> provenance = new HashMap<>();

  /** Whether the log accepted each commit, by "member#seq". */
  private final Map<String, Boolean> decisions = new HashMap<>();

  private final Map<ColorShard, Long> committed = new HashMap<>();

  /** The last SN each reading (member, shard, tenure) processed, by "member/shard#tenure". */
  private final Map<String, Long> lastProcessed = new HashMap<>();

  /** The SNs of the read color processed by anyone. */
  final Set<Long> processed = new HashSet<>();

  long recordsApplied;

  /** Records below this SN may be trimmed from the group log: the largest trim asked for. */
  private long trimmedBelow;

  /** Valid checkpoints (docs/architecture.md#consumer-groups) in the group log. */
  long checkpoints;

  long trims;
  long trimsDone;

  /** Readers that found the records after their last one trimmed and resumed from a checkpoint. */
  long restores;

  long commitsAccepted;
  long commitsRejected;
  long rejectionsTold;
  long duplicates;

  SimGroupReferee(SimWorld world) {
    this.world = world;
  }

  /**
   * {@code member} applied {@code record} at {@code sn}; its last record before was at {@code
   * previousSn}, and {@code after} is its state now.
   */
  void applied(
      String member, long previousSn, long sn, GroupRecord record, GroupState.Snapshot after) {
    if (sn > state.lastAppliedSn()) {
      apply(sn, record);
    }
    Long skipped = records.higherKey(previousSn);
    if (skipped != null && skipped < sn && resumedAfterTrim(sn, record)) {
      restores++;
      world.trace.note(member + " resumes from the checkpoint at " + Sn.describe(sn));
    } else if (skipped != null && skipped < sn) {
      world.fail(
          Invariant.GROUP_AGREEMENT,
          member
              + " applied SN "
              + Sn.describe(sn)
              + " but never the record at "
              + Sn.describe(skipped));
    }
    if (!record.equals(records.get(sn))) {
      world.fail(
          Invariant.GROUP_AGREEMENT,
          member
              + " applied "
              + record
              + " at SN "
              + Sn.describe(sn)
              + ", another member "
              + records.get(sn));
    }
    if (!after.equals(states.get(sn))) {
      world.fail(
          Invariant.GROUP_AGREEMENT,
          member
              + " after SN "
              + Sn.describe(sn)
              + " holds "
              + after
              + " where the first member to apply it held "
              + states.get(sn));
    }
  }

  /**
   * A reader may pass over records only where a trim took them, and only to the checkpoint the
   * trimmed log starts with (docs/architecture.md#consumer-groups): every record between its last
   * one and {@code sn} lies below a trim asked for, and the record it lands on is a checkpoint.
   */
  private boolean resumedAfterTrim(long sn, GroupRecord record) {
    return record instanceof GroupRecord.Checkpoint && records.lowerKey(sn) < trimmedBelow;
  }

  /** A member asked to trim the group log's records below {@code sn}. */
  void trimmed(long sn) {
    trims++;
    trimmedBelow = Math.max(trimmedBelow, sn);
  }

  private void apply(long sn, GroupRecord record) {
    Boolean current = null;
    String key = null;
    if (record instanceof GroupRecord.Commit c) {
      key = c.writer() + "#" + c.seq();
      current = stillOwned(c);
    }
    long lastBefore = state.lastAppliedSn();
    GroupState.Outcome outcome = state.apply(sn, record);
    recordsApplied++;
    if (record instanceof GroupRecord.Checkpoint c && c.basedOnSn() == lastBefore) {
      checkpoints++; // valid: based on the record just before it
    }
    world.trace.note("group log " + Sn.describe(sn) + ": " + record + " -> " + outcome);
    records.put(sn, record);
    states.put(sn, state.snapshot());
    if (current != null) {
      boolean accepted = outcome == GroupState.Outcome.APPLIED;
      decisions.put(key, accepted);
      if (accepted) {
        commitsAccepted++;
      } else {
        commitsRejected++;
      }
      if (accepted != current) {
        world.fail(
            Invariant.GROUP_FENCING,
            "commit "
                + record
                + " at SN "
                + Sn.describe(sn)
                + (current
                    ? " of shards its member owned without interruption since it read them"
                    : " from a member that lost a shard since it read it (or left)")
                + " was "
                + (accepted ? "accepted" : "rejected: " + state.lastRejection()));
      }
    }
    state
        .committed()
        .forEach(
            (cs, position) -> {
              Long before = committed.put(cs, position);
              if (before != null && position < before) {
                world.fail(
                    Invariant.GROUP_POSITIONS_MONOTONIC,
                    cs
                        + " moved back from "
                        + before
                        + " to "
                        + position
                        + " at SN "
                        + Sn.describe(sn));
              }
            });
  }

  /** Whether the commit's member still owns every shard of it since it began reading it. */
  private boolean stillOwned(GroupRecord.Commit c) {
    Map<ColorShard, Long> since = provenance.get(c.writer() + "#" + c.seq());
    if (since == null) {
      world.fail(Invariant.GROUP_FENCING, "a commit nobody sent: " + c);
      return false;
    }
    if (state.member(c.writer()) == null) {
      return false;
    }
    for (ColorShard cs : c.positions().keySet()) {
      GroupState.Owner owner = state.owners().get(cs);
      if (owner == null
          || !owner.member().equals(c.writer())
          || owner.sinceGeneration() != since.get(cs)) {
        return false;
      }
    }
    return true;
  }

  /** A member sends a commit of shards it owns since these generations. */
  void commitSent(String member, long seq, Map<ColorShard, Long> since) {
    provenance.put(member + "#" + seq, Map.copyOf(since));
  }

  /** What the member was told of its commit: null accepted, else the error. */
  void commitTold(String member, long seq, Throwable error) {
    String key = member + "#" + seq;
    Boolean accepted = decisions.get(key);
    boolean rejected = error instanceof CommitFailedException;
    if (error != null && !rejected) {
      return; // the append failed: the member does not know, the log may still hold it
    }
    rejectionsTold += rejected ? 1 : 0;
    if (accepted == null || accepted == rejected) {
      world.fail(
          Invariant.GROUP_FENCING,
          member
              + "'s commit #"
              + seq
              + " was "
              + (accepted == null ? "not applied yet" : accepted ? "accepted" : "rejected")
              + " but the member was told "
              + (rejected ? "rejected: " + error.getMessage() : "accepted"));
    }
  }

  /**
   * A member reads these shards (with the generation since which it owns each) under a generation.
   */
  void reading(String member, long generation, Map<ColorShard, Long> owned) {
    for (ColorShard cs : owned.keySet()) {
      String other = claims.putIfAbsent(cs + "@" + generation, member);
      if (other != null && !other.equals(member)) {
        world.fail(
            Invariant.GROUP_ONE_OWNER,
            member + " reads " + cs + " under generation " + generation + ", as " + other + " did");
      }
    }
  }

  /**
   * A member processed the record at {@code sn} of shard {@code cs} in its {@code tenure}-th
   * reading of it, which began at {@code start}.
   */
  void processed(String member, ColorShard cs, int tenure, long start, long sn) {
    String key = member + "/" + cs + "#" + tenure;
    Long last = lastProcessed.put(key, sn);
    if (last == null ? sn < start : sn <= last) {
      world.fail(
          Invariant.GROUP_SHARD_ORDER,
          member
              + " processed "
              + cs
              + " SN "
              + Sn.describe(sn)
              + (last == null
                  ? " first in a reading that began at " + Sn.describe(start)
                  : " after " + Sn.describe(last)));
    }
    if (!processed.add(sn)) {
      duplicates++;
    }
  }
}
