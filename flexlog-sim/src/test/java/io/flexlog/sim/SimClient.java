package io.flexlog.sim;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.TrimResult;
import io.flexlog.client.internals.SimClientBridge;
import io.flexlog.core.model.Color;
import io.flexlog.replica.replication.ReplicaLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

/**
 * A client in the simulation: the production client roles (through {@link SimClientBridge}) on a
 * simulated event loop, with a connection per replica node opened on first use and its deadline
 * timer on virtual time. The data path's clients do not crash, their connections do; a consumer
 * group member's client dies with its member ({@link #crash}).
 */
final class SimClient implements SimLink.Endpoint, SimClock.Owner {
  final int id;
  private final SimWorld world;
  private final SimClientBridge bridge;
  private final SimTasks tasks = new SimTasks(() -> this.alive);
  private final Map<Integer, SimLink.End> links = new LinkedHashMap<>();
  private final long tickMs;
  private int subscriptions;
  private boolean alive = true;

  SimClient(int id, SimWorld world) {
    this.id = id;
    this.world = world;
    FlexLogConfig config = FlexLogConfig.fromProperties(config());
    this.tickMs = SimClientBridge.tickMs(config);
    this.bridge =
        new SimClientBridge(
            config,
            world.topology,
            ReplicaLimits.DEFAULT_MAX_RECORD_BYTES,
            new Network(),
            new Loop(),
            world.clock::nanoTime,
            0x5100_0000L + id);
    world.clock.schedule(this, tickMs, this::tick);
  }

  private static Properties config() {
    Properties p = new Properties();
    p.setProperty(FlexLogConfig.BOOTSTRAP_SERVERS, "127.0.0.1:1");
    p.setProperty(FlexLogConfig.REQUEST_TIMEOUT_MS, "2000");
    p.setProperty(FlexLogConfig.DELIVERY_TIMEOUT_MS, "30000");
    p.setProperty(FlexLogConfig.READ_TIMEOUT_MS, "2000");
    return p;
  }

  private void tick() {
    bridge.checkDeadlines();
    world.clock.schedule(this, tickMs, this::tick);
  }

  CompletableFuture<Long> append(String color, byte[] payload) {
    return bridge.append(color, payload);
  }

  /** One APPEND_BATCH of {@code payloads} to the color; a future per record (none: no shard). */
  List<CompletableFuture<Long>> appendBatch(String color, List<byte[]> payloads, int pick) {
    return bridge.appendBatch(color, payloads, pick);
  }

  CompletableFuture<Map<String, long[]>> appendAtomically(Map<String, List<byte[]>> records) {
    return bridge.appendAtomically(records);
  }

  CompletableFuture<Optional<LogRecord>> read(String color, long sn) {
    return bridge.read(color, sn);
  }

  SimSubscriber subscribe(Color color) {
    String name = "client " + id + " subscriber " + (++subscriptions) + " of " + color.name();
    return new SimSubscriber(name, color.name(), color.id(), bridge.subscribe(color.name(), 0));
  }

  /** A subscription to one shard of the color's subtree, from {@code fromSn}. */
  RecordStream subscribeShard(String color, int shardId, long fromSn) {
    return bridge.subscribeShard(color, shardId, fromSn);
  }

  /** A subscription to the whole color from SN 0, read by its caller. */
  RecordStream subscribe(String color) {
    return bridge.subscribe(color, 0);
  }

  CompletableFuture<TrimResult> trim(String color, long sn) {
    return bridge.trim(color, sn);
  }

  /** The process dies (kill -9): its connections drop, its tasks and timers never run. */
  void crash() {
    alive = false;
    world.trace.note("crash " + name());
    world.network.dropAllOf(this);
    links.clear();
  }

  boolean hasTasks() {
    return tasks.pending();
  }

  void runTasks() {
    tasks.runTurn(name());
  }

  @Override
  public void onFrame(SimLink.End end, ByteBuf frame) {
    if (!bridge.onFrame(frame)) {
      world.fail(this + " got an unexpected " + SimLink.describe(frame));
    }
  }

  @Override
  public void onClosed(SimLink.End end) {
    for (Map.Entry<Integer, SimLink.End> e : links.entrySet()) {
      if (e.getValue() == end) {
        links.remove(e.getKey());
        bridge.onConnectionLost(e.getKey());
        return;
      }
    }
  }

  @Override
  public boolean alive() {
    return alive;
  }

  @Override
  public String name() {
    return "client " + id;
  }

  @Override
  public String toString() {
    return name();
  }

  private final class Network implements SimClientBridge.Network {
    @Override
    public ByteBufAllocator alloc() {
      return UnpooledByteBufAllocator.DEFAULT;
    }

    @Override
    public void send(int nodeId, ByteBuf frame) {
      SimLink.End end = links.get(nodeId);
      if (end == null) {
        end = world.connectClient(SimClient.this, nodeId);
        if (end == null) {
          frame.release(); // connection refused: the node is down
          tasks.add(() -> bridge.onConnectionLost(nodeId));
          return;
        }
        links.put(nodeId, end);
      }
      end.write(frame);
    }

    @Override
    public void flush() {
      links.values().forEach(SimLink.End::flush);
    }
  }

  private final class Loop implements SimClientBridge.Loop {
    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    @Override
    public void schedule(Runnable task, long delayNs) {
      world.clock.schedule(SimClient.this, Math.max(1, (delayNs + 999_999) / 1_000_000), task);
    }
  }
}
