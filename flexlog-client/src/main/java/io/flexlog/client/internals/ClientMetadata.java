package io.flexlog.client.internals;

import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The metadata role: the client's current topology, its refreshes, and color and shard lookups.
 *
 * <p>When a node answers UNKNOWN_COLOR or UNKNOWN_SHARD, a role asks for a {@link #refresh} (once
 * per request) and decides in its callback: if the color is gone from the fresh topology the
 * request fails with {@link UnknownColorException}, else the node is behind and the request keeps
 * retrying until its deadline. Colors created at runtime so become usable without reconnecting.
 *
 * <p>Threading: {@link #topology()}, {@link #maxRecordBytes()} and {@link #color(String)} may be
 * called from any thread (the metadata is published through a volatile field); everything else runs
 * on the client's event loop. Fetches block, so the {@link Fetcher} runs them elsewhere and hands
 * the result back to the loop.
 */
final class ClientMetadata {
  /** Fetches the topology off the loop. */
  interface Fetcher {
    /** Starts a fetch and later runs {@code onLoop} on the loop with the result, or null. */
    void fetch(Consumer<Metadata> onLoop);
  }

  /**
   * How long a color that a fresh topology did not have stays unknown without another fetch: a
   * producer sending to a misspelled color fails each record at once instead of fetching the
   * topology once per record (Kafka's metadata refresh backoff is its {@code retry.backoff.ms}, 100
   * ms by default).
   */
  static final long UNKNOWN_COLOR_RECHECK_NS = TimeUnit.MILLISECONDS.toNanos(100);

  /** The last color a fetched topology did not have, and when that was learned. */
  private record Miss(String color, long atNs) {}

  private final ClientLoop loop;
  private final NanoClock clock;
  private final Fetcher fetcher;
  private final Duration connectTimeout;
  private final Outbound outbound;
  private final Consumer<Topology> onApplied;
  private final List<Runnable> afterRefresh = new ArrayList<>();
  private volatile Metadata metadata;

  /** The shards by color of {@link #metadata}'s topology, rebuilt when a newer one is applied. */
  private volatile SubtreeShards subtreeShards;

  private boolean refreshing;
  private volatile Miss lastMiss;

  /**
   * @param connectTimeout how long a blocking {@link #refreshAndWait()} waits (plus a second)
   * @param onApplied told on the loop of every newer topology applied (connections drop moved
   *     nodes)
   */
  ClientMetadata(
      Metadata initial,
      ClientLoop loop,
      NanoClock clock,
      Fetcher fetcher,
      Duration connectTimeout,
      Outbound outbound,
      Consumer<Topology> onApplied) {
    this.metadata = initial;
    this.subtreeShards = new SubtreeShards(initial.topology());
    this.loop = loop;
    this.clock = clock;
    this.fetcher = fetcher;
    this.connectTimeout = connectTimeout;
    this.outbound = outbound;
    this.onApplied = onApplied;
  }

  Topology topology() {
    return metadata.topology();
  }

  int maxRecordBytes() {
    return metadata.maxRecordBytes();
  }

  /**
   * Resolves a color name, refreshing the topology once (off the loop) if it is not known yet,
   * unless a refresh within {@link #UNKNOWN_COLOR_RECHECK_NS} did not find it either.
   */
  Color color(String name) {
    Optional<Color> color = topology().color(name);
    if (color.isEmpty() && !loop.inLoop() && !recentlyMissing(name)) {
      refreshAndWait();
      color = topology().color(name);
      if (color.isEmpty()) {
        lastMiss = new Miss(name, clock.nanoTime());
      }
    }
    return color.orElseThrow(() -> unknownColor(name));
  }

  private boolean recentlyMissing(String name) {
    Miss miss = lastMiss;
    return miss != null
        && miss.color.equals(name)
        && clock.nanoTime() - miss.atNs < UNKNOWN_COLOR_RECHECK_NS;
  }

  UnknownColorException unknownColor(String name) {
    return new UnknownColorException(
        "unknown color '"
            + name
            + "'; the cluster has "
            + topology().colors().stream().map(Color::name).sorted().toList());
  }

  /**
   * The shards that may hold records of a color, by id, so that key hashing is stable. The list is
   * computed once per topology (appends call this for every record) and must not be modified.
   */
  List<Shard> shardsOf(int colorId) {
    Topology topology = topology();
    SubtreeShards shards = subtreeShards;
    if (shards.topology() != topology) {
      // Between the two volatile writes of onFetched, or read off the loop just then.
      shards = new SubtreeShards(topology);
    }
    return shards.of(colorId);
  }

  /**
   * Fetches the topology again and waits for it; for colors created after this client connected.
   * Must not be called on the client's event loop (from a future's callback, say).
   */
  void refreshAndWait() {
    if (loop.inLoop()) {
      throw new IllegalStateException("refreshMetadata() would block the client's event loop");
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(() -> refresh(() -> done.complete(null)));
    try {
      done.get(connectTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted while fetching the topology", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new FlexLogTimeoutException("no topology within " + connectTimeout);
    }
  }

  /**
   * Fetches the topology (at most one fetch at a time) and then runs {@code then} on the loop,
   * whether the fetch succeeded or not. Loop only.
   */
  void refresh(Runnable then) {
    afterRefresh.add(then);
    if (refreshing) {
      return;
    }
    refreshing = true;
    fetcher.fetch(this::onFetched);
  }

  /** A fetch ended (null: it failed): apply a topology at least as new, then run the callbacks. */
  void onFetched(Metadata fetched) {
    refreshing = false;
    if (fetched != null && fetched.topology().version() >= topology().version()) {
      subtreeShards = new SubtreeShards(fetched.topology());
      metadata = fetched;
      onApplied.accept(fetched.topology());
    }
    List<Runnable> callbacks = new ArrayList<>(afterRefresh);
    afterRefresh.clear();
    callbacks.forEach(Runnable::run);
    outbound.flush();
  }
}
