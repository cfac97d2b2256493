package io.flexlog.client.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.TrimResult;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The client's production roles ({@link ClientRoles}) for the whole-data-path simulation in {@code
 * io.flexlog.sim}: it lives in the roles' package, because the roles and their edges are
 * package-private, and exposes only what the simulation drives. The simulation's network, loop and
 * clock stand in for Netty's; the topology is the simulation's own, so a refresh answers at once.
 */
public final class SimClientBridge {
  /** How the client's frames leave: one connection per node, opened on first use. */
  public interface Network {
    ByteBufAllocator alloc();

    void send(int nodeId, ByteBuf frame);

    void flush();
  }

  /** The client's event loop in the simulation. */
  public interface Loop {
    void execute(Runnable task);

    void schedule(Runnable task, long delayNs);
  }

  private final ClientRoles roles;

  public SimClientBridge(
      FlexLogConfig config,
      Topology topology,
      int maxRecordBytes,
      Network network,
      Loop loop,
      LongSupplier clock,
      long session) {
    Metadata metadata = new Metadata(topology, maxRecordBytes);
    ClientLoop clientLoop =
        new ClientLoop() {
          @Override
          public void execute(Runnable task) {
            loop.execute(task);
          }

          @Override
          public void schedule(Runnable task, long delayNs) {
            loop.schedule(task, delayNs);
          }

          @Override
          public boolean inLoop() {
            return true; // the simulation runs every process on its one thread
          }
        };
    Outbound outbound =
        new Outbound() {
          @Override
          public ByteBufAllocator alloc() {
            return network.alloc();
          }

          @Override
          public void send(int nodeId, ByteBuf frame) {
            network.send(nodeId, frame);
          }

          @Override
          public void flush() {
            network.flush();
          }
        };
    this.roles =
        new ClientRoles(
            config,
            metadata,
            outbound,
            clientLoop,
            clock::getAsLong,
            onLoop -> loop.execute(() -> onLoop.accept(metadata)),
            applied -> {},
            session);
  }

  /** How often the simulation should run {@link #checkDeadlines()}. */
  public static long tickMs(FlexLogConfig config) {
    return ClientRoles.tickMs(config);
  }

  public CompletableFuture<Long> append(String color, byte[] payload) {
    return roles.appends.append(color, null, Unpooled.wrappedBuffer(payload));
  }

  /**
   * Appends {@code payloads} to the color in one APPEND_BATCH, on shard {@code pick} modulo the
   * color's shards; one future per record. Empty if the color has no shard (nothing is sent). A
   * {@code pick} of 0 or 1 (modulo 4) hands the records over in one buffer, as the producer does
   * (views of it, and the buffer sent as one piece while a frame carries the whole batch); 2 or 3,
   * one buffer per record.
   */
  public List<CompletableFuture<Long>> appendBatch(String color, List<byte[]> payloads, int pick) {
    var known = roles.metadata.topology().color(color);
    if (known.isEmpty() || roles.metadata.shardsOf(known.get().id()).isEmpty()) {
      return List.of();
    }
    List<Shard> shards = roles.metadata.shardsOf(known.get().id());
    int shardId = shards.get(Math.floorMod(pick, shards.size())).id();
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    ByteBuf[] buffers = new ByteBuf[payloads.size()];
    ByteBuf whole = Math.floorMod(pick, 4) < 2 ? Unpooled.buffer() : null;
    for (int i = 0; i < buffers.length; i++) {
      if (whole == null) {
        buffers[i] = Unpooled.wrappedBuffer(payloads.get(i));
      } else {
        int at = whole.writerIndex();
        whole.writeBytes(payloads.get(i));
        buffers[i] = whole.retainedSlice(at, payloads.get(i).length);
      }
      futures.add(new CompletableFuture<>());
    }
    roles.batches.append(
        color,
        known.get().id(),
        shardId,
        buffers,
        whole,
        new BatchListener() {
          @Override
          public void onAppended(int index, long sn) {
            futures.get(index).complete(sn);
          }

          @Override
          public void onFailed(int index, FlexLogException error) {
            futures.get(index).completeExceptionally(error);
          }
        });
    return futures;
  }

  /** Appends to several colors, all or nothing: SNs per color, in the order of its list. */
  public CompletableFuture<Map<String, long[]>> appendAtomically(
      Map<String, List<byte[]>> records) {
    return roles.groups.appendAtomically(records);
  }

  public CompletableFuture<Optional<LogRecord>> read(String color, long sn) {
    return roles.reads.read(color, sn);
  }

  public RecordStream subscribe(String color, long fromSn) {
    return roles.subscriptions.open(color, fromSn);
  }

  /** A subscription to one shard of the color's subtree (a consumer group member's read). */
  public RecordStream subscribeShard(String color, int shardId, long fromSn) {
    return roles.subscriptions.openShard(color, shardId, fromSn);
  }

  public CompletableFuture<TrimResult> trim(String color, long sn) {
    return roles.trims.trim(color, sn);
  }

  /** A frame from a node; false if no role takes its type. The caller keeps ownership. */
  public boolean onFrame(ByteBuf frame) {
    return roles.inbound.onFrame(frame);
  }

  public void onConnectionLost(int nodeId) {
    roles.onConnectionLost(nodeId);
  }

  public void checkDeadlines() {
    roles.checkDeadlines();
  }
}
