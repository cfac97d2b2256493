package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A consumer group as its log describes it (docs/architecture.md#consumer-groups): members in join
 * order (the first is the leader), the generation, who owns which color shard since which
 * generation, and the committed positions. Every reader of the log applies the same records in the
 * same order (one color, one total order) and so holds the same state: this is the group's
 * coordinator, replicated, with no process of its own and nothing that a restart loses.
 *
 * <p>Rules, applied per record:
 *
 * <ul>
 *   <li>JOIN adds a member (or changes its subscription) and starts a new generation; LEAVE, and
 *       EXPEL if no heartbeat of the member came after the one it names, remove a member, drop its
 *       shards and start a new generation.
 *   <li>ASSIGN counts only for the current generation. A shard that stays with its owner keeps its
 *       {@code sinceGeneration}; the others are owned from this generation on.
 *   <li>COMMIT is accepted only if, for every shard it names, the member owns the shard and owned
 *       it already at the commit's generation (generation fencing); a commit from outside the
 *       membership (manual assignment) only for shards no member owns. All or nothing.
 *   <li>RESET is accepted only while the group has no members.
 *   <li>CHECKPOINT replaces the state when the reader has applied exactly the record it is based on
 *       (a valid checkpoint) or is behind it (the reader was overtaken by the trim that follows a
 *       valid checkpoint); a reader ahead of it ignores it.
 * </ul>
 *
 * <p>Not thread-safe: {@link GroupMember} guards it.
 */
public final class GroupState {
  /** A member as the log knows it. */
  public record Member(String id, long sessionTimeoutMs, long lastBeatSn, List<String> colors) {}

  /** Who owns a shard, and since which generation without interruption. */
  public record Owner(String member, long sinceGeneration) {}

  /** Who last committed a shard's position, with which of its commit sequence numbers. */
  public record CommitMark(String writer, long seq) {}

  /** The whole state, as a checkpoint carries it. */
  public record Snapshot(
      long generation,
      long assignedGeneration,
      List<Member> members,
      Map<ColorShard, Owner> owners,
      Map<ColorShard, Long> committed,
      Map<ColorShard, CommitMark> lastCommits) {}

  /** What applying a record did. */
  public enum Outcome {
    APPLIED,
    /** Valid but without effect (an old ASSIGN, a stale EXPEL, a checkpoint the reader is past). */
    IGNORED,
    /** A COMMIT or RESET that the rules refuse; {@link #lastRejection} says why. */
    REJECTED
  }

  private final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
  private final Map<ColorShard, Owner> owners = new LinkedHashMap<>();
  private final Map<ColorShard, Long> committed = new LinkedHashMap<>();
  private final Map<ColorShard, CommitMark> lastCommits = new LinkedHashMap<>();
  private long generation;
  private long assignedGeneration;
  private long lastAppliedSn;
  private long appliedSinceCheckpoint;
  private String lastRejection = "";

  /** Applies the record at {@code sn} (SNs must increase). */
  public Outcome apply(long sn, GroupRecord record) {
    Outcome outcome = dispatch(sn, record);
    lastAppliedSn = sn;
    appliedSinceCheckpoint++;
    return outcome;
  }

  private Outcome dispatch(long sn, GroupRecord record) {
    if (record instanceof GroupRecord.Join j) {
      return join(sn, j);
    } else if (record instanceof GroupRecord.Heartbeat h) {
      Member m = members.get(h.member());
      if (m == null) {
        return Outcome.IGNORED;
      }
      members.put(m.id(), new Member(m.id(), m.sessionTimeoutMs(), sn, m.colors()));
      return Outcome.APPLIED;
    } else if (record instanceof GroupRecord.Leave l) {
      return remove(l.member());
    } else if (record instanceof GroupRecord.Expel e) {
      Member m = members.get(e.member());
      return m != null && m.lastBeatSn() == e.lastBeatSn() ? remove(e.member()) : Outcome.IGNORED;
    } else if (record instanceof GroupRecord.Assign a) {
      return assign(a);
    } else if (record instanceof GroupRecord.Commit c) {
      return commit(c);
    } else if (record instanceof GroupRecord.Reset r) {
      if (!members.isEmpty()) {
        return reject(
            "the group has "
                + members.size()
                + " members "
                + members.keySet()
                + "; positions can be reset only while it has none");
      }
      committed.putAll(r.positions());
      r.positions().keySet().forEach(lastCommits::remove);
      return Outcome.APPLIED;
    } else if (record instanceof GroupRecord.Checkpoint c) {
      if (lastAppliedSn > c.basedOnSn()) {
        return Outcome.IGNORED;
      }
      restore(c.state());
      appliedSinceCheckpoint = -1; // apply() counts the checkpoint itself
      return Outcome.APPLIED;
    }
    return Outcome.APPLIED; // SYNC
  }

  private Outcome join(long sn, GroupRecord.Join j) {
    Member old = members.get(j.member());
    members.put(
        j.member(), new Member(j.member(), j.sessionTimeoutMs(), sn, List.copyOf(j.colors())));
    if (old != null && old.colors().equals(j.colors())) {
      return Outcome.APPLIED; // a repeated join: a heartbeat
    }
    generation++;
    return Outcome.APPLIED;
  }

  private Outcome remove(String member) {
    if (members.remove(member) == null) {
      return Outcome.IGNORED;
    }
    owners.values().removeIf(o -> o.member().equals(member));
    generation++;
    return Outcome.APPLIED;
  }

  private Outcome assign(GroupRecord.Assign a) {
    if (a.generation() != generation) {
      return Outcome.IGNORED;
    }
    Map<ColorShard, Owner> next = new LinkedHashMap<>();
    a.owners()
        .forEach(
            (cs, member) -> {
              if (members.containsKey(member)) {
                Owner old = owners.get(cs);
                long since =
                    old != null && old.member().equals(member) ? old.sinceGeneration() : generation;
                next.put(cs, new Owner(member, since));
              }
            });
    owners.clear();
    owners.putAll(next);
    assignedGeneration = generation;
    return Outcome.APPLIED;
  }

  private Outcome commit(GroupRecord.Commit c) {
    boolean outsider = !c.asMember();
    if (!outsider && !members.containsKey(c.writer())) {
      return reject(
          "member "
              + c.writer()
              + " is no longer in the group (it left, or missed its session"
              + " timeout or max.poll.interval.ms)");
    }
    for (ColorShard cs : c.positions().keySet()) {
      Owner owner = owners.get(cs);
      if (outsider && owner != null) {
        return reject(cs + " is owned by group member " + owner.member());
      }
      if (!outsider
          && (owner == null
              || !owner.member().equals(c.writer())
              || c.generation() < owner.sinceGeneration())) {
        return reject(
            cs
                + " is no longer assigned to member "
                + c.writer()
                + " (its generation "
                + c.generation()
                + ", group generation "
                + generation
                + (owner == null ? ", unassigned" : ", owned by " + owner.member())
                + ")");
      }
    }
    c.positions()
        .forEach(
            (cs, sn) -> {
              CommitMark last = lastCommits.get(cs);
              if (last == null || !last.writer().equals(c.writer()) || c.seq() > last.seq()) {
                committed.put(cs, sn);
                lastCommits.put(cs, new CommitMark(c.writer(), c.seq()));
              } // else overtaken by a later commit of the same writer: it stands
            });
    return Outcome.APPLIED;
  }

  private Outcome reject(String why) {
    lastRejection = why;
    return Outcome.REJECTED;
  }

  private void restore(Snapshot s) {
    generation = s.generation();
    assignedGeneration = s.assignedGeneration();
    members.clear();
    s.members().forEach(m -> members.put(m.id(), m));
    owners.clear();
    owners.putAll(s.owners());
    committed.clear();
    committed.putAll(s.committed());
    lastCommits.clear();
    lastCommits.putAll(s.lastCommits());
  }

  public Snapshot snapshot() {
    return new Snapshot(
        generation,
        assignedGeneration,
        List.copyOf(members.values()),
        new LinkedHashMap<>(owners),
        new LinkedHashMap<>(committed),
        new LinkedHashMap<>(lastCommits));
  }

  /** Why the last COMMIT or RESET was rejected. */
  public String lastRejection() {
    return lastRejection;
  }

  public long generation() {
    return generation;
  }

  public long assignedGeneration() {
    return assignedGeneration;
  }

  /** True while the current generation has members but no ASSIGN yet. */
  public boolean needsAssignment() {
    return !members.isEmpty() && assignedGeneration != generation;
  }

  /** The member that writes ASSIGN and checkpoints: the longest-standing one; null if none. */
  public String leader() {
    return members.isEmpty() ? null : members.keySet().iterator().next();
  }

  public List<Member> members() {
    return new ArrayList<>(members.values());
  }

  public Member member(String id) {
    return members.get(id);
  }

  public Map<ColorShard, Owner> owners() {
    return owners;
  }

  /** The shards {@code member} owns, sorted. */
  public Set<ColorShard> assignmentOf(String member) {
    Set<ColorShard> mine = new TreeSet<>();
    owners.forEach(
        (cs, o) -> {
          if (o.member().equals(member)) {
            mine.add(cs);
          }
        });
    return mine;
  }

  /** Committed positions: the next SN to read per color shard. */
  public Map<ColorShard, Long> committed() {
    return committed;
  }

  /** Who last committed each shard's position, with which commit sequence number. */
  public Map<ColorShard, CommitMark> lastCommits() {
    return lastCommits;
  }

  public long lastAppliedSn() {
    return lastAppliedSn;
  }

  /** Records applied since the last valid checkpoint (or the start). */
  public long appliedSinceCheckpoint() {
    return appliedSinceCheckpoint;
  }
}
