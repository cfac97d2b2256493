package io.flexlog.client.consumer.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.CommitFailedException;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogException;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer's part in its group (docs/architecture.md#consumer-groups): a thread that follows
 * the group's log (a subscription to its color from the start, or from the last checkpoint) and
 * applies it to a {@link GroupState}, and that writes this member's records: JOIN and LEAVE when
 * the application asks, HEARTBEAT every heartbeat interval, EXPEL for a member whose heartbeats
 * stopped for its session timeout, LEAVE when the application stopped polling for
 * max.poll.interval, and, as the leader, ASSIGN after every membership change and a CHECKPOINT
 * (then a trim) every {@link #CHECKPOINT_EVERY} records.
 *
 * <p>Commits are records too: {@link #commit} appends one and completes once this member has
 * applied it, with the outcome every member computes alike (accepted, or rejected by generation
 * fencing).
 *
 * <p>Threading: the state is guarded by this object's monitor; the thread {@code
 * flexlog-group-<group>} applies records and writes the periodic ones; the consumer's thread calls
 * the public methods.
 */
public final class GroupMember implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupMember.class);

  /** Records between two checkpoints of the group log. */
  public static final int CHECKPOINT_EVERY = 1000;

  private static final long TICK_NS = 20_000_000L;
  private static final int OUTCOMES_KEPT = 4096;

  private final ClientCore core;
  private final String color;
  private final String memberId;
  private final long sessionTimeoutMs;
  private final long heartbeatNs;
  private final long maxPollIntervalNs;
  private final Signal signal = new Signal();
  private final GroupState state = new GroupState();
  private final Map<String, Long> seenNs = new HashMap<>();
  private final Map<String, Long> expelsSent = new HashMap<>();
  private final LinkedHashMap<Long, String> outcomes = new LinkedHashMap<>();
  private final Map<Long, CompletableFuture<Void>> waiting = new HashMap<>();
  private final RecordStream stream;
  private final Thread thread;

  private List<String> colors = List.of();
  private boolean wantJoin;
  private boolean joinSent;
  private boolean joinSeen;
  private long lastBeatSentNs;
  private volatile long lastPollNs = System.nanoTime();
  private long assignSentFor = -1;
  private long checkpointSentAt = -1;
  private long checkpointSn = -1;
  private volatile boolean running = true;
  private FlexLogException failure;

  public GroupMember(
      ClientCore core,
      String color,
      String clientId,
      Duration sessionTimeout,
      Duration heartbeatInterval,
      Duration maxPollInterval) {
    this.core = core;
    this.color = color;
    this.memberId =
        clientId + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    this.sessionTimeoutMs = sessionTimeout.toMillis();
    this.heartbeatNs = heartbeatInterval.toNanos();
    this.maxPollIntervalNs = maxPollInterval.toNanos();
    this.stream = core.subscribe(color, -1, 0, signal::raise);
    this.thread = new Thread(this::run, "flexlog-group-" + color);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  public String memberId() {
    return memberId;
  }

  // ------------------------------------------------------------------ the consumer's side

  /** Joins (again) with this subscription; the member thread writes the JOIN. */
  public synchronized void join(List<String> subscribed) {
    if (!wantJoin || !subscribed.equals(colors)) {
      colors = List.copyOf(subscribed);
      wantJoin = true;
      joinSent = false;
      signal.raise();
    }
  }

  /** The application polled: it is alive for max.poll.interval.ms. */
  public void notePoll() {
    lastPollNs = System.nanoTime();
  }

  /** True while this member is in the group as the log says. */
  public synchronized boolean isMember() {
    return state.member(memberId) != null;
  }

  /** This member's shards and the generation they are valid for, as far as applied. */
  public synchronized Assignment assignment() {
    throwIfFailed();
    if (state.member(memberId) == null) {
      return new Assignment(-1, Set.of());
    }
    return new Assignment(state.generation(), state.assignmentOf(memberId));
  }

  /** The shards and their generation; {@code generation < 0}: not a member. */
  public record Assignment(long generation, Set<ColorShard> shards) {}

  /** The committed positions as far as applied. */
  public synchronized Map<ColorShard, Long> committed() {
    return new HashMap<>(state.committed());
  }

  /** A copy of the whole state, as far as applied. */
  public synchronized GroupState.Snapshot snapshot() {
    return state.snapshot();
  }

  /**
   * Commits positions. Completes once applied: normally, or with {@link CommitFailedException}
   * naming why the log's rules rejected it.
   *
   * @param generation the generation of the assignment the positions come from; ignored for a
   *     consumer outside the membership ({@code asMember == false})
   */
  public CompletableFuture<Void> commit(
      Map<ColorShard, Long> positions, long generation, boolean asMember) {
    return write(
        new GroupRecord.Commit(asMember ? memberId : "", generation, Map.copyOf(positions)));
  }

  /** Resets positions (operators); rejected while the group has members. */
  public CompletableFuture<Void> reset(Map<ColorShard, Long> positions) {
    return write(new GroupRecord.Reset(Map.copyOf(positions)));
  }

  /** Completes once everything appended to the log before this call has been applied here. */
  public CompletableFuture<Void> sync() {
    return write(new GroupRecord.Sync(ThreadLocalRandom.current().nextLong()));
  }

  /** Leaves the group now (the application closes); the member thread keeps following the log. */
  public CompletableFuture<Void> leave() {
    synchronized (this) {
      wantJoin = false;
      joinSent = false;
    }
    return write(new GroupRecord.Leave(memberId));
  }

  private CompletableFuture<Void> write(GroupRecord record) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    append(record)
        .whenComplete(
            (sn, error) -> {
              if (error != null) {
                done.completeExceptionally(error);
                return;
              }
              synchronized (this) {
                if (state.lastAppliedSn() >= sn) {
                  complete(done, outcomes.getOrDefault(sn, null));
                } else {
                  waiting.put(sn, done);
                }
              }
            });
    return done;
  }

  private static void complete(CompletableFuture<Void> done, String rejection) {
    if (rejection == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(new CommitFailedException("commit rejected: " + rejection));
    }
  }

  private CompletableFuture<Long> append(GroupRecord record) {
    return core.append(color, null, Unpooled.wrappedBuffer(GroupRecordDescriptor.encode(record)));
  }

  // ------------------------------------------------------------------ the member thread

  private void run() {
    while (running) {
      try {
        signal.await(TICK_NS);
        LogRecord record;
        while (running && (record = stream.poll(Duration.ZERO)) != null) {
          apply(record);
        }
        duties(System.nanoTime());
      } catch (InterruptedException e) {
        return;
      } catch (FlexLogException e) {
        if (running) {
          LOG.error("group log '{}' cannot be followed: {}", color, e.getMessage());
          fail(e);
        }
        return;
      } catch (RuntimeException e) {
        LOG.error("group member {} of '{}' failed", memberId, color, e);
        fail(new FlexLogException("group member failed: " + e, e));
        return;
      }
    }
  }

  private synchronized void fail(FlexLogException e) {
    failure = e;
    waiting.values().forEach(f -> f.completeExceptionally(e));
    waiting.clear();
  }

  private void throwIfFailed() {
    if (failure != null) {
      throw new FlexLogException(
          "the group log of '" + color + "' failed: " + failure.getMessage(), failure);
    }
  }

  private synchronized void apply(LogRecord record) {
    GroupRecord decoded;
    try {
      decoded = GroupRecordDescriptor.decode(record.payload());
    } catch (IllegalArgumentException e) {
      LOG.warn("group log '{}': skipping SN {}: {}", color, record.sn(), e.getMessage());
      return;
    }
    long basedOn = state.lastAppliedSn();
    GroupState.Outcome outcome = state.apply(record.sn(), decoded);
    String rejection = outcome == GroupState.Outcome.REJECTED ? state.lastRejection() : null;
    outcomes.put(record.sn(), rejection);
    if (outcomes.size() > OUTCOMES_KEPT) {
      outcomes.remove(outcomes.keySet().iterator().next());
    }
    CompletableFuture<Void> done = waiting.remove(record.sn());
    if (done != null) {
      complete(done, rejection);
    }
    noteSeen(decoded);
    if (decoded instanceof GroupRecord.Checkpoint c
        && record.sn() == checkpointSn
        && c.basedOnSn() == basedOn) {
      trimBefore(record.sn()); // our checkpoint is valid: what precedes it is no longer needed
    }
  }

  private void noteSeen(GroupRecord record) {
    long now = System.nanoTime();
    if (record instanceof GroupRecord.Join j) {
      seenNs.put(j.member(), now);
      if (j.member().equals(memberId)) {
        joinSeen = true;
      }
    } else if (record instanceof GroupRecord.Heartbeat h) {
      seenNs.put(h.member(), now);
    }
  }

  private void trimBefore(long sn) {
    core.trim(color, sn - 1)
        .whenComplete(
            (r, e) -> {
              if (e != null) {
                LOG.debug("group log '{}': trim before SN {} failed: {}", color, sn, e.toString());
              }
            });
  }

  private synchronized void duties(long now) {
    if (wantJoin && !joinSent) {
      joinSent = true;
      joinSeen = false;
      lastBeatSentNs = now;
      send(new GroupRecord.Join(memberId, sessionTimeoutMs, colors), () -> joinSent = false);
    }
    boolean member = state.member(memberId) != null;
    if (wantJoin && joinSeen && !member) {
      LOG.warn(
          "group member {} of '{}' was removed from the group; joining again", memberId, color);
      joinSent = false;
      return;
    }
    if (member && now - lastBeatSentNs >= heartbeatNs) {
      lastBeatSentNs = now;
      send(new GroupRecord.Heartbeat(memberId), null);
    }
    if (member && wantJoin && now - lastPollNs > maxPollIntervalNs) {
      LOG.warn(
          "group member {} of '{}': no poll for more than max.poll.interval.ms; leaving the group",
          memberId,
          color);
      wantJoin = false;
      send(new GroupRecord.Leave(memberId), null);
    }
    expelSilentMembers(now);
    if (memberId.equals(state.leader())) {
      leaderDuties();
    }
  }

  private void expelSilentMembers(long now) {
    for (GroupState.Member m : state.members()) {
      if (m.id().equals(memberId)) {
        continue;
      }
      long seen = seenNs.computeIfAbsent(m.id(), id -> now);
      if (now - seen > m.sessionTimeoutMs() * 1_000_000L
          && !Long.valueOf(m.lastBeatSn()).equals(expelsSent.get(m.id()))) {
        LOG.info(
            "group '{}': no heartbeat of member {} for {} ms; removing it",
            color,
            m.id(),
            (now - seen) / 1_000_000);
        expelsSent.put(m.id(), m.lastBeatSn());
        send(new GroupRecord.Expel(m.id(), m.lastBeatSn()), () -> expelsSent.remove(m.id()));
      }
    }
  }

  private void leaderDuties() {
    long generation = state.generation();
    if (state.needsAssignment() && assignSentFor != generation) {
      assignSentFor = generation;
      Map<ColorShard, String> owners =
          StickyAssignor.assign(state.members(), shardsOfSubscribedColors(), state.owners());
      LOG.info("group '{}': generation {}: assigning {}", color, generation, owners);
      send(new GroupRecord.Assign(generation, owners), () -> assignSentFor = -1);
    }
    if (state.appliedSinceCheckpoint() >= CHECKPOINT_EVERY
        && checkpointSentAt != state.lastAppliedSn()) {
      checkpointSentAt = state.lastAppliedSn();
      GroupRecord.Checkpoint checkpoint =
          new GroupRecord.Checkpoint(state.lastAppliedSn(), state.snapshot());
      append(checkpoint)
          .whenComplete(
              (sn, e) -> {
                synchronized (this) {
                  if (e == null) {
                    checkpointSn = sn;
                    if (state.lastAppliedSn() >= sn) {
                      checkpointSn = -1; // applied before we knew its SN: the next one trims
                    }
                  }
                }
              });
    }
  }

  private Map<String, List<Integer>> shardsOfSubscribedColors() {
    Map<String, List<Integer>> shards = new HashMap<>();
    for (GroupState.Member m : state.members()) {
      for (String c : m.colors()) {
        shards.computeIfAbsent(c, this::shardIds);
      }
    }
    return shards;
  }

  private List<Integer> shardIds(String colorName) {
    try {
      int id = core.topology().color(colorName).orElseThrow().id();
      return core.topology().shardsInSubtree(id).stream().map(s -> s.id()).sorted().toList();
    } catch (RuntimeException e) {
      LOG.warn("group '{}': color '{}' is unknown; no shards to assign", color, colorName);
      return List.of();
    }
  }

  /** Appends a record of the member thread; {@code onFailure} (under the lock) lets it retry. */
  private void send(GroupRecord record, Runnable onFailure) {
    append(record)
        .whenComplete(
            (sn, e) -> {
              if (e != null) {
                LOG.debug("group '{}': {} not written: {}", color, record, e.toString());
                if (onFailure != null) {
                  synchronized (this) {
                    onFailure.run();
                  }
                }
              }
            });
  }

  @Override
  public void close() {
    running = false;
    signal.raise();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stream.close();
  }
}
