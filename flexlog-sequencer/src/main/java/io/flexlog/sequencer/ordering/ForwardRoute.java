package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Sn;
import io.flexlog.core.util.TokenLongMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.collections.Int2IntHashMap;

/**
 * One forwarding route of this node: order requests for a color X that this node does not host,
 * climbing over the tree edge {@code exitColorId} to the parent node (see {@link Routing}). It
 * plays the part of the leaf of docs/architecture.md#append step 3 for its local shards and of an
 * aggregating hop for its child nodes:
 *
 * <ul>
 *   <li>Tokens from replicas of local shards are deduplicated here (every replica of a shard sends
 *       the same token) and batched per turn; child range requests are batched behind them. At the
 *       end of the turn the batch becomes one {@link UpwardBatch} (or more when it exceeds the
 *       largest range a role can hand out).
 *   <li>The answer, a range {@code [sn, sn + n)}, is split back in order: consecutive SNs to the
 *       tokens, then a sub-range to each child request.
 *   <li>Watermarks of X from the parent are released to the route's replicas and child edges only
 *       after the responses they cover were written (FIFO connections do the rest), and are held
 *       back while a request that was sent on a broken connection is still unanswered: its answer
 *       can carry SNs below such a watermark (docs/architecture.md#watermarks).
 * </ul>
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ForwardRoute implements ShardSlots, TokenOrderer {
  private final int colorId;
  private final int exitColorId;
  private int parentNodeId;
  private int parentEpoch;
  private final int dedupWindow;
  private final int maxCount;
  private final SequencerMetrics.RouteMeters meters;
  private int[] shardIds = new int[0];
  private final Int2IntHashMap slotByShard = new Int2IntHashMap(-1);
  private Routing.Edge[] edges = new Routing.Edge[0];
  private TokenLongMap dedup;

  private UpwardBatch filling;
  private final ArrayList<UpwardBatch> sealed = new ArrayList<>();
  private final ArrayDeque<UpwardBatch> free = new ArrayDeque<>();

  private int replaysOutstanding;
  private long upstreamWatermark;
  private long releasedWatermark;
  private long publishedSn;
  private boolean watermarkDirty;

  /** The topology version that added each slot's shard here. */
  private long[] slotVersions = new long[0];

  /**
   * @param topologyVersion the version {@code route} comes from
   * @param maxCount the most SNs one upward request may ask for (a role refuses larger ranges)
   */
  ForwardRoute(
      Routing.Route route,
      long topologyVersion,
      int dedupWindow,
      int maxCount,
      SequencerMetrics.RouteMeters meters) {
    this.colorId = route.colorId();
    this.exitColorId = route.exitColorId();
    this.parentNodeId = route.parentNodeId();
    this.parentEpoch = route.parentEpoch();
    this.dedupWindow = dedupWindow;
    this.maxCount = maxCount;
    this.meters = meters;
    update(route, topologyVersion);
  }

  /** Takes the shards and child edges of a newer topology's version of this route. */
  void update(Routing.Route route, long topologyVersion) {
    for (int shardId : route.shardIds()) {
      if (slotByShard.get(shardId) < 0) {
        int slot = shardIds.length;
        shardIds = Arrays.copyOf(shardIds, slot + 1);
        shardIds[slot] = shardId;
        slotVersions = Arrays.copyOf(slotVersions, slot + 1);
        slotVersions[slot] = topologyVersion;
        slotByShard.put(shardId, slot);
      }
    }
    edges = route.childEdges().toArray(new Routing.Edge[0]);
    if (filling != null) {
      filling.tokens.ensureSlots(shardIds.length);
    }
  }

  @Override
  public int colorId() {
    return colorId;
  }

  int exitColorId() {
    return exitColorId;
  }

  /** The node this route sends its requests to and takes answers and watermarks from. */
  int parentNodeId() {
    return parentNodeId;
  }

  /**
   * True when {@code route} (a newer topology's version of this route) names another parent node,
   * or the same node in a larger role epoch: the parent color's role failed over
   * (docs/architecture.md#sequencer-failover). Then this route follows it: from now on it sends to,
   * and takes answers and watermarks from, that node only; the caller moves the outstanding
   * requests ({@link ParentLinks#retarget}).
   */
  boolean retarget(Routing.Route route) {
    if (route.parentNodeId() == parentNodeId && route.parentEpoch() <= parentEpoch) {
      return false;
    }
    parentNodeId = route.parentNodeId();
    parentEpoch = Math.max(parentEpoch, route.parentEpoch());
    return true;
  }

  SequencerMetrics.RouteMeters meters() {
    return meters;
  }

  @Override
  public int shardCount() {
    return shardIds.length;
  }

  @Override
  public int shardId(int slot) {
    return shardIds[slot];
  }

  /** The slot of a local shard of this route, or -1. */
  int shardSlot(int shardId) {
    return slotByShard.get(shardId);
  }

  /** The edges down to child nodes whose requests for this color climb this route. */
  Routing.Edge[] edges() {
    return edges;
  }

  // ---------------------------------------------------------------- requests

  /**
   * Deduplicates one token from a replica of the local shard in {@code slot}.
   *
   * @return {@link OrderingRole#ACCEPTED} when it joined this turn's batch, {@link
   *     OrderingRole#PENDING} when it is batched or on its way up already, or its SN
   */
  @Override
  public long offer(int slot, long tokenHi, long tokenLo) {
    if (dedup == null) {
      dedup = new TokenLongMap(Math.min(dedupWindow, 1 << 16), Sn.NONE, dedupWindow);
    }
    long known = dedup.get(tokenHi, tokenLo);
    if (known != Sn.NONE) {
      return known;
    }
    dedup.put(tokenHi, tokenLo, OrderingRole.PENDING);
    UpwardBatch batch = filling(1);
    batch.tokens.add(slot, tokenHi, tokenLo);
    return OrderingRole.ACCEPTED;
  }

  @Override
  public void remember(long tokenHi, long tokenLo, long sn) {
    if (dedup == null) {
      dedup = new TokenLongMap(Math.min(dedupWindow, 1 << 16), Sn.NONE, dedupWindow);
    }
    if (dedup.get(tokenHi, tokenLo) == Sn.NONE) {
      dedup.put(tokenHi, tokenLo, sn);
    }
  }

  /** Visits every token this route was answered an SN for (within its dedup window). */
  void forEachAnswered(TokenLongMap.Visitor visitor) {
    if (dedup != null) {
      dedup.forEach(
          (hi, lo, sn) -> {
            if (sn > 0) {
              visitor.accept(hi, lo, sn);
            }
          });
    }
  }

  /** Adds an admitted child range request to this turn's batch. */
  void offerChild(int childNodeId, int incarnation, long requestId, int count) {
    filling(count).children.add(childNodeId, incarnation, requestId, count);
  }

  private UpwardBatch filling(int adding) {
    if (filling != null && filling.count() + adding > maxCount) {
      sealed.add(filling);
      filling = null;
    }
    if (filling == null) {
      filling = free.isEmpty() ? new UpwardBatch(shardIds.length) : free.poll();
      filling.tokens.ensureSlots(shardIds.length);
      filling.route = this;
    }
    return filling;
  }

  /** True when requests of this turn wait to be sent up. */
  boolean hasBatch() {
    return filling != null || !sealed.isEmpty();
  }

  /**
   * Ends the turn's batching: returns the batches to send up, in order. The list is reused; the
   * caller takes the batches before the next call.
   */
  List<UpwardBatch> takeBatches() {
    if (filling != null) {
      sealed.add(filling);
      filling = null;
    }
    return sealed;
  }

  /**
   * Splits the answer {@code [firstSn, firstSn + batch.count())} over the batch: consecutive SNs to
   * its tokens in arrival order (remembered for deduplication), then a sub-range to each child
   * request, stored in {@code batch.children}.
   */
  void onAnswer(UpwardBatch batch, long firstSn) {
    ColorBatch tokens = batch.tokens;
    for (int i = 0; i < tokens.size(); i++) {
      long sn = firstSn + i;
      tokens.assign(i, sn);
      dedup.put(tokens.hi(i), tokens.lo(i), sn);
    }
    long next = firstSn + tokens.size();
    ChildParts children = batch.children;
    for (int i = 0; i < children.size(); i++) {
      children.assign(i, next);
      next += children.count(i);
    }
    publishedSn = Math.max(publishedSn, next - 1);
  }

  void recycle(UpwardBatch batch) {
    batch.reset();
    free.add(batch);
  }

  // ---------------------------------------------------------------- watermarks

  /** A request sent on a connection that broke is outstanding: hold watermarks back. */
  void replayStarted() {
    replaysOutstanding++;
  }

  /** The answer to such a request arrived (and its responses were written). */
  void replayAnswered() {
    replaysOutstanding--;
    markIfReleasable();
  }

  /** TREE_WATERMARK of this route's color and edge from the parent. */
  void onUpstreamWatermark(long watermark) {
    if (watermark > upstreamWatermark) {
      upstreamWatermark = watermark;
      markIfReleasable();
    }
  }

  private void markIfReleasable() {
    if (replaysOutstanding == 0 && upstreamWatermark > releasedWatermark) {
      watermarkDirty = true;
    }
  }

  /** True when a watermark can be released at the end of this turn. */
  boolean hasReleasableWatermark() {
    return watermarkDirty;
  }

  /** Releases the latest watermark from the parent; the caller writes it down. */
  long releaseWatermark() {
    watermarkDirty = false;
    releasedWatermark = upstreamWatermark;
    return releasedWatermark;
  }

  /**
   * How many slots (the first ones: slots are only appended) hold shards this node knew before
   * topology {@code version}: the shards a join mark of that version is about.
   */
  int slotsBefore(long version) {
    int n = 0;
    while (n < slotVersions.length && slotVersions[n] < version) {
      n++;
    }
    return n;
  }

  /** The latest watermark written down to this route's replicas and children, 0 before any. */
  long releasedWatermark() {
    return releasedWatermark;
  }

  /**
   * The watermark for a replica connection that just registered: every SN up to it was assigned,
   * and everything this route already published is covered, so the newcomer (which missed those
   * responses) treats that span as possibly missed, never as complete. 0 when nothing is known.
   */
  long catchUpWatermark() {
    return Math.max(releasedWatermark, publishedSn);
  }

  @Override
  public String toString() {
    return "route of color "
        + colorId
        + " via "
        + exitColorId
        + " to node "
        + parentNodeId
        + " (role epoch "
        + parentEpoch
        + ")";
  }
}
