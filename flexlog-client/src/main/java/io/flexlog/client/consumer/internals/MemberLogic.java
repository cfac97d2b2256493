package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one member decides from the group log and the time (docs/architecture.md#consumer-groups),
 * without threads, locks or a clock of its own, so that the simulation drives the same decisions as
 * a running consumer: applies records to its {@link GroupState}, and on each {@link #duties} call
 * writes JOIN, HEARTBEAT, LEAVE (max.poll.interval), EXPEL (session timeouts) and, as the leader,
 * ASSIGN and CHECKPOINT through its {@link Log}.
 *
 * <p>Not thread-safe: {@link GroupMember} calls it under its lock.
 */
public final class MemberLogic {
  private static final Logger LOG = LoggerFactory.getLogger(MemberLogic.class);

  /** Records between two checkpoints of the group log, by default. */
  public static final int CHECKPOINT_EVERY = 1000;

  /** Where the member's records go. */
  public interface Log {
    /** Appends a record; {@code onFailure} runs (under the caller's lock) if it was not written. */
    void append(GroupRecord record, Runnable onFailure);

    /** Appends a checkpoint; {@code onSn} gets its SN once written. */
    void appendCheckpoint(GroupRecord.Checkpoint checkpoint, java.util.function.LongConsumer onSn);

    /** Drops the group log's records below {@code sn}. */
    void trimBefore(long sn);

    /** The shard ids of a color's subtree, sorted; empty if the color is unknown. */
    List<Integer> shardIds(String color);
  }

  private final String memberId;
  private final long sessionTimeoutMs;
  private final long heartbeatNs;
  private final long maxPollIntervalNs;
  private final Log log;
  private final int checkpointEvery;
  private final GroupState state = new GroupState();
  private final Map<String, Long> seenNs = new HashMap<>();
  private final Map<String, Long> expelsSent = new HashMap<>();
  private List<String> colors = List.of();
  private boolean wantJoin;
  private boolean joinSent;
  private boolean joinSeen;

  /** The member left because the application stopped polling: its next poll joins again. */
  private boolean leftForPollTimeout;

  /**
   * A LEAVE was written while the log had this member, and the log still has it: it reads nothing
   * and does not heartbeat until the log removes it (by that LEAVE, or by EXPEL if it was lost).
   */
  private boolean leaving;

  private long lastBeatSentNs;
  private long lastPollNs;
  private long assignSentFor = -1;
  private long checkpointSentAt = -1;

  /** Whether the current {@link #duties} call wrote a record. */
  private boolean wroteThisTurn;

  /** The SN of this member's newest checkpoint once its append is acknowledged; -1 before. */
  private long checkpointSn = -1;

  private long lastValidCheckpointSn;
  private long previousValidCheckpointSn;

  public MemberLogic(
      String memberId, long sessionTimeoutMs, long heartbeatNs, long maxPollIntervalNs, Log log) {
    this(memberId, sessionTimeoutMs, heartbeatNs, maxPollIntervalNs, log, CHECKPOINT_EVERY);
  }

  /**
   * @param checkpointEvery records of the group log between two checkpoints the leader writes (the
   *     simulation takes few, so that its short runs checkpoint and trim the group log)
   */
  public MemberLogic(
      String memberId,
      long sessionTimeoutMs,
      long heartbeatNs,
      long maxPollIntervalNs,
      Log log,
      int checkpointEvery) {
    if (checkpointEvery <= 0) {
      throw new IllegalArgumentException("checkpointEvery must be > 0: " + checkpointEvery);
    }
    this.memberId = memberId;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.heartbeatNs = heartbeatNs;
    this.maxPollIntervalNs = maxPollIntervalNs;
    this.log = log;
    this.checkpointEvery = checkpointEvery;
  }

  public String memberId() {
    return memberId;
  }

  public GroupState state() {
    return state;
  }

  /**
   * The shards this member owns, each with the generation since which it owns it without
   * interruption, and the generation of the assignment that gave them (the last ASSIGN applied);
   * {@code generation < 0}: not a member.
   *
   * <p>Not the group's generation: after a membership change the member keeps reading the shards of
   * the previous assignment until the leader's ASSIGN for the new generation, which may give some
   * of them to another member. Labelled with the new generation, two members would read one shard
   * under the same generation (docs/architecture.md#consumer-groups).
   */
  public record Assignment(long generation, Map<ColorShard, Long> owned) {}

  /**
   * This member's shards and the generation of their assignment, as far as applied; none while it
   * is leaving. A member that left and joins again before the log applied its LEAVE reads nothing
   * until the log gives it shards anew: started from the committed positions of the old ownership,
   * which its own commits still in flight may pass, its next commits would move them back.
   */
  public Assignment assignment() {
    if (leaving || state.member(memberId) == null) {
      return new Assignment(-1, Map.of());
    }
    Map<ColorShard, Long> owned = new TreeMap<>();
    state
        .owners()
        .forEach(
            (cs, o) -> {
              if (o.member().equals(memberId)) {
                owned.put(cs, o.sinceGeneration());
              }
            });
    return new Assignment(state.assignedGeneration(), owned);
  }

  /** The application wants to be a member for these colors (again). */
  public void join(List<String> subscribed, long nowNs) {
    lastPollNs = nowNs;
    if (!wantJoin || !subscribed.equals(colors)) {
      colors = List.copyOf(subscribed);
      wantJoin = true;
      joinSent = false;
    }
  }

  /** The application no longer wants to be a member (it writes LEAVE itself). */
  public void stopWanting() {
    wantJoin = false;
    joinSent = false;
    leftForPollTimeout = false;
    leaving = state.member(memberId) != null;
  }

  public void notePoll(long nowNs) {
    lastPollNs = nowNs;
    if (leftForPollTimeout) {
      leftForPollTimeout = false;
      wantJoin = true;
      joinSent = false;
    }
  }

  /** Applies the log's record at {@code sn}. */
  public GroupState.Outcome apply(long sn, GroupRecord record, long nowNs) {
    long basedOn = state.lastAppliedSn();
    GroupState.Outcome outcome = state.apply(sn, record);
    leaving &= state.member(memberId) != null;
    if (record instanceof GroupRecord.Join j) {
      seenNs.put(j.member(), nowNs);
      joinSeen |= j.member().equals(memberId);
    } else if (record instanceof GroupRecord.Heartbeat h) {
      seenNs.put(h.member(), nowNs);
    } else if (record instanceof GroupRecord.Checkpoint c && c.basedOnSn() == basedOn) {
      previousValidCheckpointSn = lastValidCheckpointSn;
      lastValidCheckpointSn = sn;
      trimAfterOwnCheckpoint();
    } else if (record instanceof GroupRecord.Checkpoint c
        && c.basedOnSn() > basedOn
        && outcome == GroupState.Outcome.APPLIED) {
      // Resumed from a checkpoint past records trimmed away: this member's own JOIN, and whatever
      // removed it since, may be among them. Counted as seen, so that duties() joins again if the
      // checkpoint does not list it; a JOIN still to come makes the second one a heartbeat.
      joinSeen |= joinSent;
    }
    return outcome;
  }

  /**
   * Once this member's own checkpoint is both acknowledged and applied as valid, the log before the
   * previous valid checkpoint is no longer needed: keeping one interval lets readers that are a
   * little behind read on without a restore. Either may come first (the subscription can deliver
   * the checkpoint before its append is acknowledged), so both call this.
   */
  private void trimAfterOwnCheckpoint() {
    if (checkpointSn > 0
        && checkpointSn == lastValidCheckpointSn
        && previousValidCheckpointSn > 0) {
      checkpointSn = -1;
      log.trimBefore(previousValidCheckpointSn);
    }
  }

  /** Writes what is due at {@code nowNs}. */
  public void duties(long nowNs) {
    wroteThisTurn = false;
    if (wantJoin && !joinSent) {
      joinSent = true;
      joinSeen = false;
      lastBeatSentNs = nowNs;
      write(new GroupRecord.Join(memberId, sessionTimeoutMs, colors), () -> joinSent = false);
    }
    boolean member = state.member(memberId) != null;
    if (wantJoin && joinSeen && !member) {
      LOG.warn("group member {} was removed from the group; joining again", memberId);
      joinSent = false;
      return;
    }
    // Only while the application wants to be in: if its LEAVE is lost, EXPEL removes it.
    if (member && wantJoin && !leaving && nowNs - lastBeatSentNs >= heartbeatNs) {
      lastBeatSentNs = nowNs;
      write(new GroupRecord.Heartbeat(memberId), null);
    }
    if (member && wantJoin && nowNs - lastPollNs > maxPollIntervalNs) {
      LOG.warn(
          "group member {}: no poll for more than max.poll.interval.ms; leaving the group",
          memberId);
      wantJoin = false;
      leftForPollTimeout = true;
      leaving = true;
      write(new GroupRecord.Leave(memberId), null);
    }
    expelSilentMembers(nowNs);
    if (memberId.equals(state.leader())) {
      leaderDuties();
    }
  }

  private void expelSilentMembers(long nowNs) {
    for (GroupState.Member m : state.members()) {
      if (m.id().equals(memberId)) {
        continue;
      }
      long seen = seenNs.computeIfAbsent(m.id(), id -> nowNs);
      if (nowNs - seen > m.sessionTimeoutMs() * 1_000_000L
          && !Long.valueOf(m.lastBeatSn()).equals(expelsSent.get(m.id()))) {
        LOG.info(
            "no heartbeat of group member {} for {} ms; removing it",
            m.id(),
            (nowNs - seen) / 1_000_000);
        expelsSent.put(m.id(), m.lastBeatSn());
        write(new GroupRecord.Expel(m.id(), m.lastBeatSn()), () -> expelsSent.remove(m.id()));
      }
    }
  }

  private void write(GroupRecord record, Runnable onFailure) {
    wroteThisTurn = true;
    log.append(record, onFailure);
  }

  private void leaderDuties() {
    long generation = state.generation();
    if (state.needsAssignment() && assignSentFor != generation) {
      assignSentFor = generation;
      Map<String, List<Integer>> shards = new HashMap<>();
      for (GroupState.Member m : state.members()) {
        for (String c : m.colors()) {
          shards.computeIfAbsent(c, log::shardIds);
        }
      }
      Map<ColorShard, String> owners =
          StickyAssignor.assign(state.members(), shards, state.owners());
      LOG.info("group generation {}: assigning {}", generation, owners);
      write(new GroupRecord.Assign(generation, owners), () -> assignSentFor = -1);
    }
    // Not after a record of this call: ordered before the checkpoint, it would make it invalid.
    if (state.appliedSinceCheckpoint() >= checkpointEvery
        && checkpointSentAt != state.lastAppliedSn()
        && !wroteThisTurn) {
      checkpointSentAt = state.lastAppliedSn();
      log.appendCheckpoint(
          new GroupRecord.Checkpoint(state.lastAppliedSn(), state.snapshot()),
          sn -> {
            checkpointSn = sn;
            trimAfterOwnCheckpoint();
          });
    }
  }
}
