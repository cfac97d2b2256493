package io.flexlog.replica.replication;

import io.flexlog.core.model.Sn;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.SyncPointStore;
import io.flexlog.replica.storage.SyncPointTable;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable sync points and join marks (docs/architecture.md#sync-phase, "Durable sync points"): per
 * (shard, color) log, the SN up to which the log is complete ({@link ColorLog#decidedThrough}) and
 * its join marks, kept in a {@link SyncPointStore} so that a restarted replica is blind only above
 * its sync point (its first sync phase fetches only what it may have missed) and still serves the
 * marks its sequencer may no longer have.
 *
 * <p>Saving costs nothing per record: once per {@link #INTERVAL_MS} (and soon after a sync phase
 * closed a range or a join mark arrived, and at a clean stop) it compares each log's point and mark
 * count with what it saved last; if one moved it flushes the log (so that every entry a point
 * covers is durable before the point can be) and hands a new table to the store, which writes it on
 * a thread of its own.
 *
 * <p>At start ({@link #restore}, after the storage recovery rebuilt the index) a table is used only
 * if it matches the recovered log: per log, the trim point has not gone back, the last entry held
 * at or below the point is still there and the number held up to it is what it was (fewer only if
 * the color was trimmed since). One mismatch (a log replaced or damaged behind the file's back)
 * drops the whole table with a warning: the replica is then blind from epoch 1, as without one.
 *
 * <p>Threading: the replica's event loop.
 */
final class SyncPoints {
  private static final Logger LOG = LoggerFactory.getLogger(SyncPoints.class);

  /** How often the points are compared with the saved ones. */
  static final long INTERVAL_MS = 1000;

  private final ShardLogs shards;
  private final LogStorage storage;
  private final ReplicaRuntime runtime;
  private SyncPointStore store = SyncPointStore.NONE;

  /** Per log (by position in {@link ShardLogs}), the point and mark end saved last. */
  private long[] savedPoints = new long[0];

  private long[] savedEndMarks = new long[0];
  private ReplicaRuntime.Timer timer;
  private boolean running;
  private boolean soon;
  private long saves;

  /**
   * Set once {@link #restore} ran to the end: nothing is saved before, so a start that fails
   * (during recovery, say) never replaces the file with a table built from a half-recovered log.
   */
  private boolean restored;

  SyncPoints(ShardLogs shards, LogStorage storage, ReplicaRuntime runtime, MeterRegistry registry) {
    this.shards = shards;
    this.storage = storage;
    this.runtime = runtime;
    FunctionCounter.builder("flexlog.replica.sync.points.saved", this, s -> s.saves)
        .tag("node", Integer.toString(shards.nodeId()))
        .description("sync-point tables handed to the store (a sync point or join mark moved)")
        .register(registry);
  }

  void store(SyncPointStore store) {
    this.store = store;
  }

  // ---------------------------------------------------------------- start

  /** Loads the stored table and applies it if it matches the recovered log; see the class doc. */
  void restore() {
    SyncPointTable table = store.load();
    List<SyncPointTable.Entry> usable = new ArrayList<>(table.entries().size());
    for (SyncPointTable.Entry e : table.entries()) {
      if (!shards.hosts(e.shardId()) || !shards.knowsColor(e.colorId())) {
        LOG.warn(
            "replica {}: sync point of shard {} color id {} ignored: no such hosted shard or color",
            shards.nodeId(),
            e.shardId(),
            e.colorId());
        continue;
      }
      String mismatch = mismatch(e);
      if (mismatch != null) {
        LOG.warn(
            "replica {}: the sync points do not match the recovered log (shard {} color id {}:"
                + " {}); ignoring all of them: blind from epoch 1, the first sync phase asks the"
                + " peers for every record of each color",
            shards.nodeId(),
            e.shardId(),
            e.colorId(),
            mismatch);
        remember();
        restored = true;
        return;
      }
      usable.add(e);
    }
    int points = 0;
    for (SyncPointTable.Entry e : usable) {
      ColorLog log = shards.log(e.shardId(), e.colorId());
      if (e.syncPoint() > 0) {
        log.restoreSyncPoint(e.syncPoint());
        points++;
      }
      for (int i = 0; i < e.markCount(); i++) {
        log.addMark(e.markVersion(i), e.markSn(i));
      }
      LOG.debug(
          "replica {}: shard {} color id {} complete through {}, {} join mark(s)",
          shards.nodeId(),
          e.shardId(),
          e.colorId(),
          Sn.describe(e.syncPoint()),
          e.markCount());
    }
    remember();
    restored = true;
    if (!usable.isEmpty()) {
      LOG.info(
          "replica {}: restored the sync points of {} log(s) and their join marks: blind only"
              + " above them",
          shards.nodeId(),
          points);
    }
  }

  /** Why the entry does not describe the recovered log, or null if it does. */
  private String mismatch(SyncPointTable.Entry e) {
    if (e.syncPoint() == 0) {
      return null;
    }
    SnIndex index = shards.log(e.shardId(), e.colorId()).index;
    long trim = storage.trimPoint(e.colorId());
    if (trim < e.trimPoint()) {
      return "trim point " + Sn.describe(trim) + " below the saved " + Sn.describe(e.trimPoint());
    }
    if (e.lastHeldSn() > trim && index.address(e.lastHeldSn()) == SnIndex.NOT_FOUND) {
      return "no entry at SN " + Sn.describe(e.lastHeldSn());
    }
    long held = heldBetween(index, trim, e.syncPoint());
    if (trim == e.trimPoint() ? held != e.heldCount() : held > e.heldCount()) {
      return held + " entries up to the point, saved " + e.heldCount();
    }
    return null;
  }

  /** Entries of the index in {@code (after, through]}. */
  private static long heldBetween(SnIndex index, long after, long through) {
    if (through <= after) {
      return 0;
    }
    return index.ceilingPosition(through + 1) - index.ceilingPosition(after + 1);
  }

  // ---------------------------------------------------------------- saving

  /** Compares the points every {@link #INTERVAL_MS} and saves them when one moved. */
  void start() {
    if (store == SyncPointStore.NONE || running) {
      return;
    }
    running = true;
    schedule();
  }

  void stop() {
    running = false;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  private void schedule() {
    timer =
        runtime.schedule(
            () -> {
              if (running) {
                saveIfMoved();
                schedule();
              }
            },
            TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS));
  }

  /** A sync phase closed a range or a join mark arrived: save in a task of its own, soon. */
  void soon() {
    if (store == SyncPointStore.NONE || soon) {
      return;
    }
    soon = true;
    runtime.execute(
        () -> {
          soon = false;
          saveIfMoved();
        });
  }

  /** Saves the table if a point or the marks of a log moved since the last save. */
  void saveIfMoved() {
    if (store == SyncPointStore.NONE || !restored || !moved()) {
      return;
    }
    // Every entry a point covers must be durable before the point can be: the index holds
    // commits of this turn that the end of the turn has not flushed yet.
    storage.flush();
    List<SyncPointTable.Entry> entries = new ArrayList<>(shards.logCount());
    for (int i = 0; i < shards.logCount(); i++) {
      ColorLog log = shards.logAt(i);
      long point = log.decidedThrough();
      if (point == 0 && log.endMark() == log.firstMark()) {
        continue;
      }
      long trim = storage.trimPoint(log.colorId);
      long held = heldBetween(log.index, trim, point);
      long last = held > 0 ? log.index.snAt(log.index.ceilingPosition(point + 1) - 1) : 0;
      long[] marks = new long[2 * (int) (log.endMark() - log.firstMark())];
      for (long m = log.firstMark(), j = 0; m < log.endMark(); m++, j += 2) {
        marks[(int) j] = log.markVersion(m);
        marks[(int) j + 1] = log.markSn(m);
      }
      entries.add(
          new SyncPointTable.Entry(log.shardId, log.colorId, point, trim, held, last, marks));
    }
    store.save(new SyncPointTable(shards.nodeId(), entries));
    saves++;
    remember();
  }

  private boolean moved() {
    if (savedPoints.length != shards.logCount()) {
      return true;
    }
    for (int i = 0; i < savedPoints.length; i++) {
      ColorLog log = shards.logAt(i);
      if (log.decidedThrough() != savedPoints[i] || log.endMark() != savedEndMarks[i]) {
        return true;
      }
    }
    return false;
  }

  private void remember() {
    int n = shards.logCount();
    savedPoints = Arrays.copyOf(savedPoints, n);
    savedEndMarks = Arrays.copyOf(savedEndMarks, n);
    for (int i = 0; i < n; i++) {
      savedPoints[i] = shards.logAt(i).decidedThrough();
      savedEndMarks[i] = shards.logAt(i).endMark();
    }
  }
}
