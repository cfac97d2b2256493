package io.flexlog.client.consumer.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.CommitFailedException;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer's part in its group (docs/architecture.md#consumer-groups): a thread that follows
 * the group's log (a subscription to its color from the start, or from the last checkpoint) and
 * applies it to a {@link GroupState}, and that writes this member's records: JOIN and LEAVE when
 * the application asks, HEARTBEAT every heartbeat interval, EXPEL for a member whose heartbeats
 * stopped for its session timeout, LEAVE when the application stopped polling for
 * max.poll.interval, and, as the leader, ASSIGN after every membership change and a CHECKPOINT
 * (then a trim) every {@link MemberLogic#CHECKPOINT_EVERY} records.
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

  private static final long TICK_NS = 20_000_000L;

  private final ClientCore core;
  private final String color;
  private final String memberId;
  private final Signal signal = new Signal();
  private final MemberLogic logic;
  private final GroupState state;
  private final OwnRecords own;
  private final RecordStream stream;
  private final Thread thread;
  private final AtomicLong commitSeq = new AtomicLong();
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
    this.logic =
        new MemberLogic(
            memberId,
            sessionTimeout.toMillis(),
            heartbeatInterval.toNanos(),
            maxPollInterval.toNanos(),
            new LogWriter());
    this.state = logic.state();
    this.own = new OwnRecords(state);
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
    logic.join(subscribed, System.nanoTime());
    signal.raise();
  }

  /** The application polled: it is alive for max.poll.interval.ms. */
  public synchronized void notePoll() {
    logic.notePoll(System.nanoTime());
  }

  /** True while this member is in the group as the log says. */
  public synchronized boolean isMember() {
    return state.member(memberId) != null;
  }

  /** This member's shards and the generation they are valid for, as far as applied. */
  public synchronized MemberLogic.Assignment assignment() {
    throwIfFailed();
    return logic.assignment();
  }

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
        new GroupRecord.Commit(
            memberId, asMember, generation, commitSeq.incrementAndGet(), Map.copyOf(positions)));
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
      logic.stopWanting();
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
                own.written(sn, record, done);
              }
            });
    return done;
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
    own.failAll(e);
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
    own.applied(record.sn(), logic.apply(record.sn(), decoded, System.nanoTime()));
  }

  private synchronized void duties(long now) {
    logic.duties(now);
  }

  /** The member's records go to the group's color through the client. */
  private final class LogWriter implements MemberLogic.Log {
    @Override
    public void append(GroupRecord record, Runnable onFailure) {
      GroupMember.this
          .append(record)
          .whenComplete(
              (sn, e) -> {
                if (e != null) {
                  LOG.debug("group '{}': {} not written: {}", color, record, e.toString());
                  if (onFailure != null) {
                    synchronized (GroupMember.this) {
                      onFailure.run();
                    }
                  }
                }
              });
    }

    @Override
    public void appendCheckpoint(GroupRecord.Checkpoint checkpoint, LongConsumer onSn) {
      GroupMember.this
          .append(checkpoint)
          .whenComplete(
              (sn, e) -> {
                if (e == null) {
                  synchronized (GroupMember.this) {
                    onSn.accept(sn);
                  }
                }
              });
    }

    @Override
    public void trimBefore(long sn) {
      core.trim(color, sn - 1)
          .whenComplete(
              (r, e) -> {
                if (e != null) {
                  LOG.debug(
                      "group log '{}': trim before SN {} failed: {}", color, sn, e.toString());
                }
              });
    }

    @Override
    public List<Integer> shardIds(String colorName) {
      Topology topology = core.topology();
      return topology
          .color(colorName)
          .map(c -> topology.shardsInSubtree(c.id()).stream().map(Shard::id).sorted().toList())
          .orElseGet(
              () -> {
                LOG.warn(
                    "group '{}': color '{}' is unknown; no shards to assign", color, colorName);
                return List.of();
              });
    }
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
