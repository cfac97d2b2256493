package io.flexlog.sequencer.ordering;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Where the join marks the node's hosted roles take are kept beyond the process
 * (docs/architecture.md#join-marks): a role that is created (at start, after AddColor, after a
 * failover that brings it back) loads the marks saved for its color before it serves any catch-up,
 * and a mark is saved before it is sent to anyone or any SN at or above it is issued. {@link
 * io.flexlog.sequencer.JoinMarkFile} keeps them in the node's data directory; the simulations keep
 * them in memory that survives their crashes; {@link #NONE} keeps nothing (tests of the ordering
 * alone).
 *
 * <p>Threading: called on the node's event loop only; the future {@link #save} returns may complete
 * on another thread.
 */
public interface JoinMarkStore {
  /** Keeps nothing: a restarted process starts without marks. */
  JoinMarkStore NONE =
      new JoinMarkStore() {
        @Override
        public List<Mark> load(int colorId) {
          return List.of();
        }

        @Override
        public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
          return CompletableFuture.completedFuture(null);
        }
      };

  /**
   * One mark of a color: its topology version, the mark SN, and the shards of the subtree that
   * joined with that version (a catch-up repeats the mark only to replicas of other shards).
   */
  record Mark(long topologyVersion, long sn, List<Integer> joinedShardIds) {
    public Mark {
      joinedShardIds = List.copyOf(joinedShardIds);
    }
  }

  /** The most marks kept per color; beyond it the oldest two are merged ({@link #merge}). */
  int MAX_MARKS = 64;

  /**
   * Both lists as one, oldest (smallest version) first: one mark per version (the smaller SN where
   * both have one, with the shards both name), at most {@link #MAX_MARKS}, the oldest two merged
   * into one with the newer version and the smaller SN until that holds. A smaller mark only makes
   * a subscriber hold its releases and open the new shards' streams from an earlier SN, both safe
   * (docs/architecture.md#join-marks).
   */
  static List<Mark> merge(List<Mark> a, List<Mark> b) {
    TreeMap<Long, Mark> byVersion = new TreeMap<>();
    for (List<Mark> list : List.of(a, b)) {
      for (Mark mark : list) {
        byVersion.merge(mark.topologyVersion(), mark, JoinMarkStore::combine);
      }
    }
    List<Mark> merged = new ArrayList<>(byVersion.values());
    merged.sort(Comparator.comparingLong(Mark::topologyVersion));
    while (merged.size() > MAX_MARKS) {
      Mark older = merged.remove(0);
      merged.set(0, combine(older, merged.get(0)));
    }
    return List.copyOf(merged);
  }

  /** One mark for two: the newer version, the smaller SN, the shards both name. */
  static Mark combine(Mark x, Mark y) {
    return new Mark(
        Math.max(x.topologyVersion(), y.topologyVersion()),
        Math.min(x.sn(), y.sn()),
        x.joinedShardIds().stream().filter(y.joinedShardIds()::contains).toList());
  }

  /**
   * A store that keeps marks in {@code local} (this node's, written first) and in {@code shared}
   * (the role's wherever it moves) and loads what either has.
   */
  static JoinMarkStore both(JoinMarkStore local, JoinMarkStore shared) {
    return new JoinMarkStore() {
      @Override
      public List<Mark> load(int colorId) {
        return merge(local.load(colorId), shared.load(colorId));
      }

      @Override
      public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
        return local.save(colorId, marks).thenCompose(done -> shared.save(colorId, marks));
      }

      /** The shared store is where every leader of the role saves; the local one is a subset. */
      @Override
      public boolean complete() {
        return shared.complete();
      }

      /** Whether the shared store has them: the role's next leader may find only those there. */
      @Override
      public boolean keeps(int colorId, List<Mark> marks) {
        return shared.keeps(colorId, marks);
      }
    };
  }

  /** The marks saved for {@code colorId}, oldest first; empty when none were. */
  List<Mark> load(int colorId);

  /**
   * Saves {@code marks} (oldest first) as the marks of {@code colorId}: every one of them is kept,
   * beside those saved before (a store may merge them by version).
   *
   * @return completed once they are durable (already, for a local file), or completed exceptionally
   *     with an error naming the store when they could not be made durable; the role issues nothing
   *     until then
   */
  CompletableFuture<Void> save(int colorId, List<Mark> marks);

  /**
   * Whether {@link #load} returns every mark that any leader of a role saved for its color, so that
   * a shard of the subtree that no loaded mark names lacks one (its leader took it and stopped
   * before it was saved; docs/architecture.md#join-marks): true for a node's file without failover
   * (the role never leaves the node) and for the metadata quorum with it (every leader saves
   * there). A role whose store is complete takes a mark for such shards before it issues anything;
   * with a store that keeps less (the default, and {@link #NONE}) a missing mark proves nothing and
   * the role takes none.
   */
  default boolean complete() {
    return false;
  }

  /** Whether every one of {@code marks} (by topology version) is saved here for {@code colorId}. */
  default boolean keeps(int colorId, List<Mark> marks) {
    List<Mark> saved = load(colorId);
    for (Mark mark : marks) {
      if (saved.stream().noneMatch(s -> s.topologyVersion() == mark.topologyVersion())) {
        return false;
      }
    }
    return true;
  }
}
