package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Every client role wired as {@link ClientCore} wires them, but without sockets or threads: a
 * {@link RecordingOutbound}, a {@link ManualLoop} on a {@link ManualClock}, and topology fetches
 * the test completes by hand. Frames from nodes go through the {@link InboundDispatcher}.
 *
 * <p>The cluster: replica nodes 1 to 6; color {@code orders} (1) with shards 10 (replicas 1, 2, 3)
 * and 11 (replicas 4, 5, 6); color {@code events} (2) with shard 20 (replicas 1, 2); both below
 * {@code global} (0), which has no shard of its own and is the atomic broker color.
 */
final class ClientHarness {
  static final long SESSION = 0x5E55_1011L;
  static final long REQUEST_TIMEOUT_NS = 100_000_000L;
  static final long DELIVERY_TIMEOUT_NS = 1_000_000_000L;
  static final long READ_TIMEOUT_NS = 500_000_000L;
  static final long LIVENESS_TIMEOUT_NS = 3_000_000_000L;
  static final long WINDOW_BYTES = 1000;
  static final int MAX_RECORD_BYTES = 1024;
  static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  static final Color ORDERS = new Color(1, "orders", Color.GLOBAL_ID, 0);
  static final Color EVENTS = new Color(2, "events", Color.GLOBAL_ID, 0);
  static final Shard ORDERS_A = new Shard(10, ORDERS.id(), List.of(1, 2, 3));
  static final Shard ORDERS_B = new Shard(11, ORDERS.id(), List.of(4, 5, 6));
  static final Shard EVENTS_A = new Shard(20, EVENTS.id(), List.of(1, 2));

  final ManualClock clock = new ManualClock();
  final ManualLoop loop = new ManualLoop(clock);
  final RecordingOutbound outbound = new RecordingOutbound();
  final ArrayDeque<Consumer<Metadata>> fetches = new ArrayDeque<>();
  final List<Topology> applied = new ArrayList<>();
  final Tokens tokens = new Tokens(SESSION);
  final ClientMetadata metadata;
  final Appends appends;
  final BatchAppends batches;
  final AtomicGroups groups;
  final Reads reads;
  final Trims trims;
  final Subscriptions subscriptions;
  final InboundDispatcher inbound;

  ClientHarness() {
    this(topology(1, true));
  }

  ClientHarness(Topology topology) {
    metadata =
        new ClientMetadata(
            new Metadata(topology, MAX_RECORD_BYTES),
            loop,
            clock,
            fetches::add,
            java.time.Duration.ofSeconds(1),
            outbound,
            applied::add);
    appends =
        new Appends(
            metadata, outbound, loop, clock, tokens, REQUEST_TIMEOUT_NS, DELIVERY_TIMEOUT_NS);
    batches =
        new BatchAppends(
            metadata, outbound, loop, clock, tokens, REQUEST_TIMEOUT_NS, DELIVERY_TIMEOUT_NS);
    groups =
        new AtomicGroups(
            metadata,
            outbound,
            loop,
            clock,
            tokens,
            Color.GLOBAL,
            REQUEST_TIMEOUT_NS,
            DELIVERY_TIMEOUT_NS);
    reads = new Reads(metadata, outbound, loop, clock, READ_TIMEOUT_NS);
    trims = new Trims(metadata, outbound, loop, clock, REQUEST_TIMEOUT_NS);
    subscriptions =
        new Subscriptions(
            metadata, outbound, loop, clock, WINDOW_BYTES, REQUEST_TIMEOUT_NS, LIVENESS_TIMEOUT_NS);
    inbound = new InboundDispatcher(appends, batches, groups, reads, trims, subscriptions, null);
  }

  /** The cluster above at {@code version}; without the {@code events} color if not wanted. */
  static Topology topology(long version, boolean withEvents) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1));
    for (int i = 1; i <= 6; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, "127.0.0.1", 10 + i));
    }
    List<Color> colors = new ArrayList<>();
    colors.add(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0));
    colors.add(ORDERS);
    List<Shard> shards = new ArrayList<>(List.of(ORDERS_A, ORDERS_B));
    if (withEvents) {
      colors.add(EVENTS);
      shards.add(EVENTS_A);
    }
    return new Topology(version, nodes, colors, shards);
  }

  /** The topology of {@link #topology(long, boolean)} with {@code events} kept {@code ms}. */
  static Topology retainedEvents(long ms) {
    Topology t = topology(1, true);
    List<Color> colors = new ArrayList<>();
    for (Color c : t.colors()) {
      colors.add(c.id() == EVENTS.id() ? c.withRetention(new Retention(ms, Retention.KEEP)) : c);
    }
    return new Topology(1, new ArrayList<>(t.nodes().values()), colors, t.shards());
  }

  /** Runs what the roles handed to the loop. */
  void runLoop() {
    loop.run();
  }

  /** A node's frame arrives: dispatched, then released, then the loop runs. */
  void deliver(ByteBuf frame) {
    try {
      assertThat(inbound.onFrame(frame)).isTrue();
    } finally {
      frame.release();
    }
    loop.run();
  }

  /** Moves the clock, runs what became due, then the conductor's deadline checks. */
  void advance(long ns) {
    clock.advance(ns);
    loop.run();
    long now = clock.nanoTime();
    appends.onTick(now);
    batches.onTick(now);
    groups.onTick(now);
    subscriptions.onTick(now);
    reads.onTick(now);
    trims.onTick(now);
    loop.run();
  }

  /** Completes the oldest pending topology fetch with {@code topology} (null: the fetch failed). */
  void completeFetch(Topology topology) {
    assertThat(fetches).as("a topology fetch is pending").isNotEmpty();
    fetches.poll().accept(topology == null ? null : new Metadata(topology, MAX_RECORD_BYTES));
    loop.run();
  }

  /** The exception a future failed with. */
  static Throwable failure(CompletableFuture<?> future) {
    assertThat(future).isCompletedExceptionally();
    return future.handle((value, error) -> error).join();
  }

  void close() {
    outbound.releaseAll();
  }
}
