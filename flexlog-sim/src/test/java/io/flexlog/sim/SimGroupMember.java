package io.flexlog.sim;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.internals.Adoption;
import io.flexlog.client.consumer.internals.GroupRecord;
import io.flexlog.client.consumer.internals.GroupRecordDescriptor;
import io.flexlog.client.consumer.internals.MemberLogic;
import io.flexlog.client.consumer.internals.OwnRecords;
import io.flexlog.core.model.Shard;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * One consumer of the {@link SimGroup}: the production group logic ({@link MemberLogic}, {@link
 * OwnRecords}, {@link Adoption}, and through them {@code GroupState} and {@code StickyAssignor}) on
 * a simulated client of its own, doing what {@code GroupMember} and {@code FlexLogConsumer} do with
 * it. Its "member thread" ({@link #threadTurn}) applies the group log and writes what is due; its
 * "application" ({@link #poll}) adopts the assignment, reads each owned shard with a one-shard
 * subscription from the committed position and processes records, and commits positions with the
 * generation it adopted. It can crash (its client dies, no LEAVE), leave and join again, close
 * (LEAVE, then gone), or stall its polls.
 */
final class SimGroupMember implements MemberLogic.Log {
  final String id;
  private final SimGroup group;
  private final SimWorld world;
  final SimClient client;
  final MemberLogic logic;
  private final OwnRecords own;
  private final RecordStream groupStream;
  private final Map<ColorShard, RecordStream> streams = new TreeMap<>();
  private final Map<ColorShard, Long> adopted = new TreeMap<>();
  private final Map<ColorShard, Long> positions = new TreeMap<>();
  private final Map<ColorShard, Long> starts = new HashMap<>();
  private final Map<ColorShard, Integer> tenures = new HashMap<>();
  private Map<ColorShard, Long> lastCommit = Map.of();
  private long generation = -1;
  private long lastAppliedSn;
  private long commitSeq;
  private int readings;
  boolean alive = true;
  boolean closed;
  boolean wants;
  boolean stalled;

  SimGroupMember(String id, int clientId, SimGroup group) {
    this.id = id;
    this.group = group;
    this.world = group.world;
    this.client = new SimClient(clientId, world);
    this.logic =
        new MemberLogic(
            id,
            SimGroup.SESSION_TIMEOUT_MS,
            SimGroup.HEARTBEAT_MS * 1_000_000L,
            SimGroup.MAX_POLL_INTERVAL_MS * 1_000_000L,
            this,
            SimGroup.CHECKPOINT_EVERY);
    this.own = new OwnRecords(logic.state());
    this.groupStream = client.subscribe(SimGroup.GROUP_COLOR);
  }

  /** Alive and not closed: a member the group must end up with. */
  boolean live() {
    return alive && !closed;
  }

  /** The application subscribes (again). */
  void subscribe() {
    wants = true;
    logic.join(List.of(SimGroup.READ_COLOR), world.clock.nanoTime());
  }

  /**
   * The member thread's turn: applies the group records that arrived, then writes what is due.
   *
   * @return how many records it applied
   */
  int threadTurn() {
    int applied = 0;
    LogRecord r;
    while ((r = groupStream.poll(Duration.ZERO)) != null) {
      GroupRecord record;
      try {
        record = GroupRecordDescriptor.decode(r.payload());
      } catch (IllegalArgumentException e) {
        continue; // not a group record (the data path's random appends): GroupMember skips it too
      }
      var outcome = logic.apply(r.sn(), record, world.clock.nanoTime());
      group.referee.applied(id, lastAppliedSn, r.sn(), record, logic.state().snapshot());
      lastAppliedSn = r.sn();
      own.applied(r.sn(), outcome);
      applied++;
    }
    logic.duties(world.clock.nanoTime());
    return applied;
  }

  /**
   * The application polls: adopts what the group log gives it (as {@code Rebalancer} does), then
   * processes up to {@code max} records of each shard it reads.
   *
   * @return records processed, plus one if the assignment changed
   */
  int poll(int max) {
    logic.notePoll(world.clock.nanoTime());
    int moved = adopt();
    for (Map.Entry<ColorShard, RecordStream> e : streams.entrySet()) {
      ColorShard cs = e.getKey();
      LogRecord r;
      for (int i = 0; i < max && (r = e.getValue().poll(Duration.ZERO)) != null; i++) {
        if (!r.color().equals(SimGroup.READ_COLOR)) {
          world.fail(Invariant.GROUP_SHARD_ORDER, id + " read " + r + " on " + cs);
        }
        group.referee.processed(id, cs, tenures.get(cs), starts.get(cs), r.sn());
        positions.put(cs, r.sn() + 1);
        moved++;
      }
    }
    return moved;
  }

  private int adopt() {
    MemberLogic.Assignment now = logic.assignment();
    Adoption.Change change = Adoption.diff(adopted, now.owned());
    generation = now.generation();
    if (!change.isEmpty()) {
      world.trace.note(id + " adopts generation " + generation + ": " + change);
    }
    for (ColorShard cs : change.revoked()) {
      streams.remove(cs).close();
      positions.remove(cs);
    }
    for (ColorShard cs : change.added()) {
      long start = logic.state().committed().getOrDefault(cs, 0L);
      positions.put(cs, start);
      starts.put(cs, start);
      tenures.put(cs, ++readings);
      streams.put(cs, client.subscribeShard(cs.color(), cs.shard(), start));
    }
    adopted.clear();
    adopted.putAll(now.owned());
    group.referee.reading(id, generation, adopted);
    return change.isEmpty() ? 0 : 1;
  }

  /**
   * Commits the positions of every shard it reads, as of its last poll, with the generation it
   * adopted then ({@code commitAsync}); a stalled member's commit comes from before its stall.
   *
   * @return true if it sent one
   */
  boolean commit() {
    if (positions.isEmpty()) {
      return false;
    }
    long seq = ++commitSeq;
    GroupRecord.Commit c = new GroupRecord.Commit(id, true, generation, seq, Map.copyOf(positions));
    group.referee.commitSent(id, seq, adopted);
    lastCommit = Map.copyOf(positions);
    CompletableFuture<Void> done = new CompletableFuture<>();
    done.whenComplete((v, e) -> group.referee.commitTold(id, seq, e));
    write(c, done);
    world.trace.note(id + " commits " + c);
    return true;
  }

  /** Whether positions moved since the last commit. */
  boolean uncommitted() {
    return !positions.isEmpty() && !positions.equals(lastCommit);
  }

  /** The application unsubscribes: every shard is revoked and LEAVE written. */
  void leave() {
    wants = false;
    for (RecordStream s : streams.values()) {
      s.close();
    }
    streams.clear();
    positions.clear();
    adopted.clear();
    logic.stopWanting();
    write(new GroupRecord.Leave(id), new CompletableFuture<>());
    world.trace.note(id + " leaves");
  }

  /** close(): commits, leaves, and the member is gone (its client finishes what is in flight). */
  void close() {
    commit();
    leave();
    groupStream.close();
    closed = true;
  }

  /** kill -9: nothing more is written or read. */
  void crash() {
    alive = false;
    client.crash();
  }

  /** True once the member has adopted {@code owned} (shards with their owned-since generations). */
  boolean adopted(Map<ColorShard, Long> owned) {
    return adopted.equals(owned) && positions.keySet().equals(owned.keySet());
  }

  private void write(GroupRecord record, CompletableFuture<Void> done) {
    client
        .append(SimGroup.GROUP_COLOR, GroupRecordDescriptor.encode(record))
        .whenComplete(
            (sn, e) -> {
              if (e != null) {
                done.completeExceptionally(e);
              } else if (alive) {
                own.written(sn, record, done);
              }
            });
  }

  // ---------------------------------------------------------------- MemberLogic.Log

  @Override
  public void append(GroupRecord record, Runnable onFailure) {
    client
        .append(SimGroup.GROUP_COLOR, GroupRecordDescriptor.encode(record))
        .whenComplete(
            (sn, e) -> {
              if (e != null && onFailure != null && alive) {
                onFailure.run();
              }
            });
  }

  @Override
  public void appendCheckpoint(GroupRecord.Checkpoint checkpoint, LongConsumer onSn) {
    client
        .append(SimGroup.GROUP_COLOR, GroupRecordDescriptor.encode(checkpoint))
        .whenComplete(
            (sn, e) -> {
              if (e == null && alive) {
                onSn.accept(sn);
              }
            });
  }

  @Override
  public void trimBefore(long sn) {
    group.referee.trimmed(sn);
    world.history.onTrimAsked(
        world.topology.color(SimGroup.GROUP_COLOR).orElseThrow().id(), sn - 1);
    client
        .trim(SimGroup.GROUP_COLOR, sn - 1)
        .whenComplete(
            (r, e) -> {
              world.trace.note(
                  id + " trims the group log before " + sn + ": " + (e != null ? e : r));
              if (e == null) {
                group.referee.trimsDone++;
              }
            });
  }

  @Override
  public List<Integer> shardIds(String color) {
    return world
        .topology
        .color(color)
        .map(c -> world.topology.shardsInSubtree(c.id()).stream().map(Shard::id).sorted().toList())
        .orElse(List.of());
  }

  @Override
  public String toString() {
    return id;
  }
}
