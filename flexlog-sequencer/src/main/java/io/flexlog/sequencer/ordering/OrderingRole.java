package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.util.TokenLongMap;
import io.flexlog.core.util.TokenWindow;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import org.agrona.collections.Int2IntHashMap;

/**
 * The ordering authority of one color hosted by this node: an epoch, a 32-bit counter, the token
 * deduplication window and the batch of the current event-loop turn (paper Alg. 1, lines 28-39).
 *
 * <p>Life of a token: {@link #offer} either adds it to the batch (and marks it pending in the dedup
 * window), reports it as already pending, or returns the SN it was given earlier. Range requests of
 * child sequencer nodes join the turn through {@link #offerRange} (their deduplication happens per
 * child, see {@link ChildRegistry}). At the end of the turn {@link #assignBatch} gives every
 * batched token the next SN in arrival order, then every range its {@code n} next SNs. SNs of one
 * role strictly increase; when the counter would pass {@code maxCounter} the role first moves to a
 * new durable epoch from its {@link EpochSource} and restarts the counter at 1. A range never spans
 * two epochs: if it does not fit in the current one, the rest of the epoch is skipped (holes are
 * legal). A role whose epoch comes from the metadata quorum cannot move on by itself: it issues
 * what fits, holds the rest of the turn's work and asks its {@link IssueGate} for a new epoch
 * (docs/architecture.md, "Sequencer failover").
 *
 * <p>Threading: not thread-safe; every method runs on the owning node's event loop.
 */
final class OrderingRole implements ShardSlots, TokenOrderer {
  /** Result of {@link #offer}: the token is new and joined the batch. */
  static final long ACCEPTED = 0L;

  /** Result of {@link #offer}: the token is already in this turn's batch. */
  static final long PENDING = -1L;

  private final Color color;
  private int[] shardIds;
  private final Int2IntHashMap slotByShard;
  private final TokenWindow dedup;
  private final ColorBatch batch;
  private final ChildParts ranges = new ChildParts();

  /**
   * Tokens and ranges of a turn that found the leased epoch exhausted, set aside while the turn
   * publishes the rest; {@link #clearBatch} puts them back into the batch.
   */
  private ColorBatch heldTokens;

  private final ChildParts heldRanges = new ChildParts();
  private final long maxCounter;
  private final EpochSource epochs;
  private IssueObserver observer;
  private IssueGate gate = IssueGate.ALWAYS;
  private int epoch;
  private long counter;

  /** True when the epoch comes from the metadata quorum: only a new lease may change it. */
  private boolean leasedEpoch;

  /** The largest role epoch the topology gave this role (0: none). */
  private int roleEpoch;

  /**
   * @param subtreeShards the shards whose replicas may ask for SNs of this color
   * @param dedupWindow how many of each client session's newest sequences the dedup window
   *     remembers ({@link TokenWindow})
   * @param epoch the durable epoch to issue SNs in
   * @param maxCounter the last counter value of an epoch ({@link Sn#MAX_COUNTER} in production)
   */
  OrderingRole(
      Color color,
      List<Shard> subtreeShards,
      int dedupWindow,
      int epoch,
      long maxCounter,
      EpochSource epochs) {
    if (maxCounter < 1 || maxCounter > Sn.MAX_COUNTER) {
      throw new IllegalArgumentException("maxCounter out of range: " + maxCounter);
    }
    this.color = color;
    this.shardIds = subtreeShards.stream().mapToInt(Shard::id).toArray();
    this.slotByShard = new Int2IntHashMap(-1);
    for (int slot = 0; slot < shardIds.length; slot++) {
      slotByShard.put(shardIds[slot], slot);
    }
    this.dedup = new TokenWindow(dedupWindow, Sn.NONE);
    this.batch = new ColorBatch(shardIds.length);
    this.maxCounter = maxCounter;
    this.epochs = epochs;
    this.epoch = epoch;
    adoptRoleEpoch(color.roleEpoch());
  }

  void gate(IssueGate gate) {
    this.gate = gate;
  }

  /**
   * Whether the role's gate lets it issue SNs in its epoch now. A leased epoch with no counter left
   * (see {@link #assignBatch}) issues nothing more: the role asks the gate for a new epoch again
   * and waits for the topology that brings it ({@link #adoptRoleEpoch}).
   */
  boolean mayIssue() {
    if (exhausted()) {
      gate.epochExhausted(color.id(), epoch);
      return false;
    }
    return gate.mayIssue(color.id(), epoch);
  }

  /** True when the role's leased epoch has no counter left: only a new lease lets it go on. */
  boolean exhausted() {
    return leasedEpoch && counter == maxCounter;
  }

  /**
   * Moves the role to the epoch the metadata quorum committed for it (0: none), restarting the
   * counter when the epoch is larger; an epoch not larger than the current one keeps the counter.
   * From then on only a new lease changes the epoch: an exhausted one holds the role's work and
   * asks the gate for a new epoch instead of taking a node epoch.
   */
  void adoptRoleEpoch(int roleEpoch) {
    if (roleEpoch <= 0) {
      return;
    }
    this.roleEpoch = Math.max(this.roleEpoch, roleEpoch);
    // The same epoch again (the node epoch this incarnation started in happened to be the one the
    // quorum gave it) keeps the counter: SNs already issued in it must never be issued again.
    if (roleEpoch > epoch) {
      epoch = roleEpoch;
      counter = 0;
    }
    leasedEpoch = true;
  }

  /**
   * True for an order request addressed to this role in an earlier epoch ({@code requestEpoch} >
   * 0): it was built for an earlier leader, before the replica synchronised with this one, and the
   * replica asks again after its HELLO here (docs/architecture.md#fencing).
   */
  boolean isStale(long requestEpoch) {
    return requestEpoch > 0 && requestEpoch < roleEpoch;
  }

  Color color() {
    return color;
  }

  void observe(IssueObserver observer) {
    this.observer = observer;
  }

  /**
   * Adds the shards of a newer topology that joined this color's subtree; known ones are skipped.
   */
  void addShards(List<Shard> subtreeShards) {
    for (Shard shard : subtreeShards) {
      if (slotByShard.get(shard.id()) < 0) {
        int slot = shardIds.length;
        shardIds = Arrays.copyOf(shardIds, slot + 1);
        shardIds[slot] = shard.id();
        slotByShard.put(shard.id(), slot);
      }
    }
    batch.ensureSlots(shardIds.length);
  }

  @Override
  public int colorId() {
    return color.id();
  }

  int epoch() {
    return epoch;
  }

  /** Number of shards in the subtree; slots are {@code [0, shardCount())}. */
  @Override
  public int shardCount() {
    return shardIds.length;
  }

  @Override
  public int shardId(int slot) {
    return shardIds[slot];
  }

  /** The slot of {@code shardId}, or -1 when the shard is not in this color's subtree. */
  int shardSlot(int shardId) {
    return slotByShard.get(shardId);
  }

  /**
   * Deduplicates one token of an order request from shard {@code slot}.
   *
   * @return {@link #ACCEPTED} when the token joined this turn's batch, {@link #PENDING} when it is
   *     already in it, or else the SN it was assigned earlier (always positive)
   */
  @Override
  public long offer(int slot, long tokenHi, long tokenLo) {
    long known = dedup.get(tokenHi, tokenLo);
    if (known != Sn.NONE) {
      return known;
    }
    dedup.put(tokenHi, tokenLo, PENDING);
    batch.add(slot, tokenHi, tokenLo);
    return ACCEPTED;
  }

  @Override
  public void remember(long tokenHi, long tokenLo, long sn) {
    if (dedup.get(tokenHi, tokenLo) == Sn.NONE) {
      dedup.put(tokenHi, tokenLo, sn);
    }
  }

  /** Visits every token this role gave an SN (within its dedup window). */
  void forEachAnswered(TokenLongMap.Visitor visitor) {
    dedup.forEach(
        (hi, lo, sn) -> {
          if (sn > 0) {
            visitor.accept(hi, lo, sn);
          }
        });
  }

  /** The SN already assigned to a token, or {@link Sn#NONE} if unknown or still pending. */
  long assigned(long tokenHi, long tokenLo) {
    long sn = dedup.get(tokenHi, tokenLo);
    return sn > 0 ? sn : Sn.NONE;
  }

  ColorBatch batch() {
    return batch;
  }

  /** Adds a child's range request of {@code count} SNs to this turn (after dedup by the caller). */
  void offerRange(int childNodeId, int incarnation, long requestId, int count) {
    if (count < 1 || count > maxCounter) {
      throw new IllegalArgumentException(
          "range of " + count + " SNs outside [1, " + maxCounter + "]");
    }
    ranges.add(childNodeId, incarnation, requestId, count);
  }

  /**
   * Drops the waiting range requests of a child incarnation below {@code below}, the oldest request
   * id the child still awaits: it moved them to new ids (its route re-targeted after a failover or
   * a new epoch of this role, docs/architecture.md#sequencer-failover), and SNs given to them would
   * only be holes. Between turns only.
   *
   * @return how many were dropped
   */
  int dropAbandonedRanges(int childNodeId, int incarnation, long below) {
    return ranges.removeUnassignedBelow(childNodeId, incarnation, below);
  }

  /**
   * Drops the waiting tokens of the shards {@code gone} accepts (by shard id) and forgets them in
   * the dedup window. For a batch held across turns (a closed gate, an exhausted epoch) while the
   * role of those shards' color left this node: their replicas fence this node and order the tokens
   * with the new leader after their sync phase; published here, they would get a second SN
   * (docs/architecture.md#sequencer-failover). Between turns only.
   *
   * @return how many were dropped
   */
  int dropTokensOfShards(IntPredicate gone) {
    int dropped = 0;
    for (int k = 0; k < batch.activeSlotCount(); k++) {
      int slot = batch.activeSlot(k);
      if (gone.test(shardIds[slot])) {
        for (int j = 0; j < batch.entryCount(slot); j++) {
          int e = batch.entry(slot, j);
          dedup.remove(batch.hi(e), batch.lo(e));
          dropped++;
        }
      }
    }
    if (dropped > 0) {
      if (heldTokens == null) {
        heldTokens = new ColorBatch(shardIds.length);
      }
      heldTokens.ensureSlots(shardIds.length);
      batch.copyUnassignedTo(heldTokens, slot -> !gone.test(shardIds[slot]));
      batch.clear();
      heldTokens.copyUnassignedTo(batch);
      heldTokens.clear();
    }
    return dropped;
  }

  /** This turn's range requests; after {@link #assignBatch} each carries its first SN. */
  ChildParts ranges() {
    return ranges;
  }

  /** True when tokens or ranges wait for SNs in this turn. */
  boolean hasWork() {
    return !batch.isEmpty() || !ranges.isEmpty();
  }

  /**
   * Assigns the next SN to every batched token in arrival order and records it in the dedup window,
   * then to every range its {@code n} next SNs. The batch keeps its entries (with their SNs) until
   * {@link #clearBatch}.
   *
   * <p>A leased epoch (from the metadata quorum) is never left by the role itself: when its counter
   * runs out, the tokens and ranges still without SNs are set aside (held) and the role asks its
   * gate for a new epoch; the batch and {@link #ranges} then hold only what was assigned, all in
   * this epoch, and {@link #clearBatch} puts the held part back for the next epoch. A range that
   * does not fit in the rest of the epoch skips it (holes, as for any overflow), so that nothing
   * more is issued in an epoch once the role asked for the next one.
   *
   * @return true when everything got its SNs, false when a leased epoch ran out first
   * @throws RuntimeException from the epoch source when an overflow needs a new epoch that cannot
   *     be made durable; tokens assigned before the failure keep their SNs, the rest stay batched
   */
  boolean assignBatch() {
    for (int i = 0; i < batch.size(); i++) {
      if (batch.sn(i) > 0) {
        continue;
      }
      if (counter == maxCounter) {
        if (leasedEpoch) {
          holdUnassigned();
          return false;
        }
        nextEpoch();
      }
      counter++;
      long sn = Sn.of(epoch, counter);
      batch.assign(i, sn);
      dedup.put(batch.hi(i), batch.lo(i), sn);
      if (observer != null) {
        observer.onIssued(color.id(), sn, 1);
      }
    }
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.firstSn(i) > 0) {
        continue;
      }
      int n = ranges.count(i);
      if (maxCounter - counter < n) {
        if (leasedEpoch) {
          counter = maxCounter; // the rest of the epoch: holes
          holdUnassigned();
          return false;
        }
        nextEpoch();
      }
      long first = Sn.of(epoch, counter + 1);
      counter += n;
      ranges.assign(i, first);
      if (observer != null) {
        observer.onIssued(color.id(), first, n);
      }
    }
    return true;
  }

  // The leased epoch ran out: what has no SN waits for the next epoch, in arrival order.
  private void holdUnassigned() {
    if (heldTokens == null) {
      heldTokens = new ColorBatch(shardIds.length);
    }
    heldTokens.ensureSlots(shardIds.length);
    batch.copyUnassignedTo(heldTokens);
    ranges.moveUnassignedTo(heldRanges);
    gate.epochExhausted(color.id(), epoch);
  }

  private void nextEpoch() {
    epoch = epochs.advance();
    counter = 0;
  }

  /**
   * Forgets the batch and the ranges after they were published; what {@link #assignBatch} held for
   * the next epoch becomes the batch again.
   */
  void clearBatch() {
    batch.clear();
    ranges.clear();
    if (heldTokens != null && !heldTokens.isEmpty()) {
      heldTokens.copyUnassignedTo(batch);
      heldTokens.clear();
    }
    if (!heldRanges.isEmpty()) {
      heldRanges.moveUnassignedTo(ranges);
    }
  }

  /**
   * Drops the batch after {@link #assignBatch} failed: tokens without an SN leave the dedup window
   * so that a retried request is ordered afresh instead of being ignored as pending. Ranges without
   * an SN are the caller's to refuse (it read them from {@link #ranges} before).
   */
  void abortBatch() {
    for (int i = 0; i < batch.size(); i++) {
      if (batch.sn(i) <= 0) {
        dedup.remove(batch.hi(i), batch.lo(i));
      }
    }
    clearBatch();
  }

  /**
   * Every SN of this color up to the returned value has been assigned: the last SN issued, or
   * {@code epoch.0} before the first one of this epoch (earlier epochs can issue nothing more).
   */
  long watermark() {
    return Sn.of(epoch, counter);
  }

  /**
   * The watermark a replica hears first when it says HELLO ({@link CatchUp}): {@link #watermark},
   * except for a role epoch from the quorum that an earlier process of this node took (a restart
   * before this process took the role again). That process may have issued any SN of the epoch, so
   * the watermark promises the whole epoch ({@code epoch.maxCounter}: this process never sends an
   * order response in it); {@code epoch.0} would let a replica take SNs of the epoch above it for
   * ones its link delivers, and its sync phase would never fetch them
   * (docs/architecture.md#sync-phase).
   */
  long catchUpWatermark() {
    // Only an epoch the role has from the topology: its own node epoch (larger than the topology's
    // role epoch) is this process's, and the quorum may still give it that epoch (same counter).
    if (counter == 0 && epoch == roleEpoch && !gate.tookEpoch(color.id(), epoch)) {
      return Sn.of(epoch, maxCounter);
    }
    return watermark();
  }
}
