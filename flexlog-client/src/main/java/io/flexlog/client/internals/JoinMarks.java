package io.flexlog.client.internals;

import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Topology;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topology-mark handling of one subscription: the join marks it received for topologies newer
 * than its shard set and has not acted on yet ((topology version, mark SN) pairs, one per version),
 * the merge's hold they imply, and the topology refreshes they wait for.
 *
 * <p>Topology changes (docs/architecture.md#subscribe): when the color's subtree gains shards, the
 * role of the color takes a join mark {@code j} (every SN it gave before is below {@code j}, every
 * SN a new shard can hold is at or above it) and every replica of the old shards delivers it on its
 * streams before any record or progress at or above {@code j}. A mark of a topology newer than the
 * subscription's makes the merger hold every release at or above {@code j} at once; the
 * subscription refreshes the topology (again, every {@link ClientSubscription#MARK_RETRY_NS}, until
 * the fetched topology is at least the mark's version), opens a stream on every shard of the
 * subtree it lacks, starting at {@code j} (or at its own start, if later), and then lifts the hold:
 * the enlarged merge releases nothing at or above {@code j} before the new streams' progress passes
 * it. Marks the subscription's topology already covers (it was opened, or refreshed, after the
 * change) are ignored; a new stream opened below a shard's join mark is harmless, the shard has
 * nothing of the color there.
 *
 * <p>Threading: the client's event loop only.
 */
final class JoinMarks {
  private static final Logger LOG = LoggerFactory.getLogger(JoinMarks.class);

  /** What the marks need from their subscription. */
  interface Owner {
    /** The topology version of the subscription's shard set. */
    long topologyVersion();

    boolean isStopped();

    void fail(FlexLogException error);

    /** Opens a stream from {@code startSn} on every shard of the subtree it lacks. */
    void joinShards(Topology topology, long startSn);

    /** The hold moved: release what may go. */
    void releaseHeld();
  }

  private final String colorName;
  private final int colorId;
  private final SubscriptionMerger merger;
  private final SubscriptionContext ctx;
  private final Owner owner;
  private long[] versions = new long[2];
  private long[] sns = new long[2];
  private int count;
  private boolean refreshing;
  private long retryAtNs;

  JoinMarks(
      String colorName,
      int colorId,
      SubscriptionMerger merger,
      SubscriptionContext ctx,
      Owner owner) {
    this.colorName = colorName;
    this.colorId = colorId;
    this.merger = merger;
    this.ctx = ctx;
    this.owner = owner;
  }

  /** A TOPOLOGY_MARK arrived on one of the subscription's streams. */
  void onMark(long version, long markSn) {
    if (version <= owner.topologyVersion()) {
      return; // the shard set already includes what joined then
    }
    if (!add(version, markSn)) {
      return; // the same mark from another shard
    }
    merger.holdFrom(Math.min(merger.holdSn(), markSn));
    LOG.info(
        "subscription to '{}': shards joined the subtree at topology version {} from SN {};"
            + " holding SNs from there until their streams are open",
        colorName,
        version,
        markSn);
    refresh();
  }

  /** Periodic: asks again for a topology that was behind a pending mark, once the time came. */
  void onTick(long nowNs) {
    if (count > 0 && !refreshing && retryAtNs != 0 && nowNs - retryAtNs >= 0) {
      refresh();
    }
  }

  private boolean add(long version, long markSn) {
    for (int i = 0; i < count; i++) {
      if (versions[i] == version) {
        return false;
      }
    }
    if (count == sns.length) {
      sns = Arrays.copyOf(sns, count * 2);
      versions = Arrays.copyOf(versions, count * 2);
    }
    versions[count] = version;
    sns[count] = markSn;
    count++;
    return true;
  }

  private void refresh() {
    if (!refreshing) {
      refreshing = true;
      retryAtNs = 0;
      ctx.refreshMetadata(this::afterRefresh);
    }
  }

  /** The topology was fetched for pending marks: join the new shards of the ones it covers. */
  private void afterRefresh() {
    refreshing = false;
    if (owner.isStopped() || count == 0) {
      return;
    }
    Topology topology = ctx.topology();
    if (topology.color(colorId).filter(c -> c.name().equals(colorName)).isEmpty()) {
      owner.fail(new UnknownColorException("color '" + colorName + "' no longer exists"));
      return;
    }
    long startSn = takeCovered(topology.version());
    if (startSn != Long.MAX_VALUE) {
      owner.joinShards(topology, startSn);
    }
    merger.holdFrom(lowestSn());
    if (count > 0) {
      retryAtNs = ctx.nanoTime() + ClientSubscription.MARK_RETRY_NS; // the metadata is behind
    }
    owner.releaseHeld();
  }

  /**
   * Removes the marks a topology of {@code version} covers.
   *
   * @return the lowest SN among them, {@link Long#MAX_VALUE} if none
   */
  private long takeCovered(long version) {
    long startSn = Long.MAX_VALUE;
    int kept = 0;
    for (int i = 0; i < count; i++) {
      if (versions[i] <= version) {
        startSn = Math.min(startSn, sns[i]);
      } else {
        versions[kept] = versions[i];
        sns[kept++] = sns[i];
      }
    }
    count = kept;
    return startSn;
  }

  /** The lowest SN of the pending marks, {@link Long#MAX_VALUE} if none. */
  private long lowestSn() {
    long lowest = Long.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      lowest = Math.min(lowest, sns[i]);
    }
    return lowest;
  }
}
