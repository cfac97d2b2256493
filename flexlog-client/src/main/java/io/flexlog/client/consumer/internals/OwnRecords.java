package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.CommitFailedException;
import java.util.LinkedHashMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The outcomes of a member's own records of its group log (docs/architecture.md#consumer-groups): a
 * record written at an SN completes once the member has applied that SN, with the outcome every
 * member computes alike (a COMMIT may be rejected by generation fencing, and then fails with {@link
 * CommitFailedException}). A record that a trim took before this member read it is resolved from
 * the checkpoint's state.
 *
 * <p>No threads, locks or sockets, so that the simulation drives the same code as a running
 * consumer: {@link GroupMember} calls it under its lock.
 */
public final class OwnRecords {
  private static final int OUTCOMES_KEPT = 4096;

  private final GroupState state;

  /** The rejection of each recently applied SN; null: not rejected. */
  private final LinkedHashMap<Long, String> outcomes = new LinkedHashMap<>();

  private final TreeMap<Long, Waiter> waiting = new TreeMap<>();

  /** A record of ours and what waits for its outcome. */
  private record Waiter(GroupRecord record, CompletableFuture<Void> done) {}

  public OwnRecords(GroupState state) {
    this.state = state;
  }

  /** Our {@code record} was written at {@code sn}; {@code done} completes with its outcome. */
  public void written(long sn, GroupRecord record, CompletableFuture<Void> done) {
    if (state.lastAppliedSn() < sn) {
      waiting.put(sn, new Waiter(record, done));
    } else if (outcomes.containsKey(sn)) {
      complete(done, outcomes.get(sn));
    } else {
      resolveSkipped(new Waiter(record, done));
    }
  }

  /** The member applied the record at {@code sn} with {@code outcome}. */
  public void applied(long sn, GroupState.Outcome outcome) {
    String rejection = outcome == GroupState.Outcome.REJECTED ? state.lastRejection() : null;
    outcomes.put(sn, rejection);
    if (outcomes.size() > OUTCOMES_KEPT) {
      outcomes.remove(outcomes.keySet().iterator().next());
    }
    Waiter waiter = waiting.remove(sn);
    if (waiter != null) {
      complete(waiter.done, rejection);
    }
    // Our records below this SN that we never saw were trimmed before we read them.
    while (!waiting.isEmpty() && waiting.firstKey() < sn) {
      resolveSkipped(waiting.pollFirstEntry().getValue());
    }
  }

  /** The log can no longer be followed: every record waiting for its outcome fails. */
  public void failAll(RuntimeException error) {
    waiting.values().forEach(w -> w.done.completeExceptionally(error));
    waiting.clear();
  }

  private static void complete(CompletableFuture<Void> done, String rejection) {
    if (rejection == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(new CommitFailedException("commit rejected: " + rejection));
    }
  }

  /**
   * The outcome of our record that a trim took before we read it, from the checkpoint state: a
   * commit counts as accepted if every shard's last commit is ours and at least as recent.
   */
  private void resolveSkipped(Waiter w) {
    if (w.record instanceof GroupRecord.Commit c) {
      for (ColorShard cs : c.positions().keySet()) {
        GroupState.CommitMark mark = state.lastCommits().get(cs);
        if (mark == null || !mark.writer().equals(c.writer()) || mark.seq() < c.seq()) {
          complete(
              w.done,
              cs
                  + ": the commit is not in the group's state after a trim overtook this reader"
                  + " (it was rejected, or another member committed the shard since)");
          return;
        }
      }
    }
    complete(w.done, null);
  }
}
