package io.flexlog.client.internals;

import io.flexlog.client.RecordHandler;
import io.flexlog.client.Subscription;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * The subscription role: opens {@link ClientSubscription}s, routes their streams' frames and errors
 * by stream id, tells them of lost connections and runs their periodic checks. It is the {@link
 * SubscriptionContext} every subscription of this client sends and refreshes through.
 *
 * <p>Threading: {@link #open} may be called from any thread (it resolves the color there) and hands
 * the subscription to the loop; everything else runs on the client's event loop.
 */
final class Subscriptions implements SubscriptionContext {
  private final Random random;
  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final long windowBytes;
  private final long openTimeoutNs;
  private final long livenessTimeoutNs;
  private final LongObjectHashMap<ShardStream> streams = new LongObjectHashMap<>();
  private final List<ClientSubscription> subscriptions = new ArrayList<>();
  private long nextId = RequestIds.SUBSCRIPTION_BASE;
  private boolean closed;

  /**
   * @param openTimeoutNs how long a SUBSCRIBE may go unanswered before the stream moves on
   * @param livenessTimeoutNs how long an open stream may stay silent before it moves on
   */
  Subscriptions(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      long windowBytes,
      long openTimeoutNs,
      long livenessTimeoutNs) {
    this(
        metadata,
        outbound,
        loop,
        clock,
        windowBytes,
        openTimeoutNs,
        livenessTimeoutNs,
        new Random());
  }

  /**
   * @param random picks the replica each shard's stream starts at (seeded, a run replays)
   */
  Subscriptions(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      long windowBytes,
      long openTimeoutNs,
      long livenessTimeoutNs,
      Random random) {
    this.random = random;
    this.metadata = metadata;
    this.outbound = outbound;
    this.loop = loop;
    this.clock = clock;
    this.windowBytes = windowBytes;
    this.openTimeoutNs = openTimeoutNs;
    this.livenessTimeoutNs = livenessTimeoutNs;
  }

  /** Opens a subscription that calls {@code handler} (not null) on its own thread. */
  Subscription open(String colorName, long fromSn, RecordHandler handler) {
    HandlerSubscription subscription = new HandlerSubscription(open(colorName, fromSn), handler);
    subscription.start();
    return subscription;
  }

  /** Opens a subscription read by the application. */
  ClientSubscription open(String colorName, long fromSn) {
    if (fromSn < 0) {
      throw new InvalidArgumentException(
          "a subscription starts at an SN >= 0 (0: from the beginning), got " + fromSn);
    }
    Color color = metadata.color(colorName);
    Topology topology = metadata.topology(); // one snapshot: the shard set and its version
    List<Shard> shards = new ArrayList<>(topology.shardsInSubtree(color.id()));
    shards.sort(Comparator.comparingInt(Shard::id));
    if (shards.isEmpty()) {
      throw new FlexLogException("color '" + colorName + "' has no shard to subscribe to");
    }
    ClientSubscription subscription =
        new ClientSubscription(
            color,
            shards,
            topology.version(),
            fromSn,
            windowBytes,
            openTimeoutNs,
            livenessTimeoutNs,
            random.nextInt(1 << 16),
            this,
            loop);
    start(subscription);
    return subscription;
  }

  /**
   * Opens a subscription to the records of a color stored on one shard of its subtree, in SN order
   * (docs/architecture.md#subscribe): the merge of a single stream, which never grows.
   */
  ClientSubscription openShard(String colorName, int shardId, long fromSn) {
    if (fromSn < 0) {
      throw new InvalidArgumentException(
          "a subscription starts at an SN >= 0 (0: from the beginning), got " + fromSn);
    }
    Color color = metadata.color(colorName);
    Topology topology = metadata.topology();
    Shard shard =
        topology.shardsInSubtree(color.id()).stream()
            .filter(s -> s.id() == shardId)
            .findFirst()
            .orElseThrow(
                () ->
                    new InvalidArgumentException(
                        "shard "
                            + shardId
                            + " is not in the subtree of color '"
                            + colorName
                            + "'"));
    ClientSubscription subscription =
        new ClientSubscription(
            color,
            List.of(shard),
            topology.version(),
            fromSn,
            windowBytes,
            openTimeoutNs,
            livenessTimeoutNs,
            random.nextInt(1 << 16),
            false,
            this,
            loop);
    start(subscription);
    return subscription;
  }

  private void start(ClientSubscription subscription) {
    loop.execute(
        () -> {
          if (closed) {
            subscription.fail(new FlexLogException("the FlexLog client was closed"));
            return;
          }
          subscriptions.add(subscription);
          subscription.start();
        });
  }

  /** SUBSCRIBE_RECORDS, SUBSCRIBE_PROGRESS or TOPOLOGY_MARK for a stream. */
  void onFrame(ByteBuf frame) {
    ShardStream stream = streams.get(FrameDescriptor.requestId(frame));
    if (stream == null) {
      return; // a stream we left: its last frames may still arrive
    }
    switch (FrameDescriptor.type(frame)) {
      case MessageType.SUBSCRIBE_RECORDS -> stream.owner.onRecords(stream, frame);
      case MessageType.TOPOLOGY_MARK -> stream.owner.onMark(stream, frame);
      default -> stream.owner.onProgress(stream, frame);
    }
  }

  /** An ERROR carrying a stream id. */
  void onError(long requestId, ErrorCode code, String message) {
    ShardStream stream = streams.get(requestId);
    if (stream != null) {
      stream.owner.onError(stream, code, message);
    }
  }

  /** The connection to a node broke: its streams fail over. */
  void onConnectionLost(int nodeId) {
    for (int i = 0; i < subscriptions.size(); i++) {
      subscriptions.get(i).onConnectionLost(nodeId);
    }
    outbound.flush();
  }

  /** Forgets stopped subscriptions; the others reopen, time out or fail over silent streams. */
  void onTick(long nowNs) {
    for (int i = subscriptions.size() - 1; i >= 0; i--) {
      ClientSubscription subscription = subscriptions.get(i);
      if (subscription.isStopped()) {
        subscriptions.remove(i);
      } else {
        subscription.onTick(nowNs);
      }
    }
  }

  /** Ends every subscription (the client closes); later opens fail at once. */
  void failAll(FlexLogException error) {
    closed = true;
    subscriptions.forEach(s -> s.fail(error));
    subscriptions.clear();
  }

  int active() {
    return subscriptions.size();
  }

  // ------------------------------------------------------------------ SubscriptionContext

  @Override
  public Topology topology() {
    return metadata.topology();
  }

  @Override
  public ByteBufAllocator alloc() {
    return outbound.alloc();
  }

  @Override
  public long newSubscriptionId() {
    return nextId++;
  }

  @Override
  public void register(long id, ShardStream stream) {
    streams.put(id, stream);
  }

  @Override
  public void unregister(long id) {
    streams.remove(id);
  }

  @Override
  public void send(int nodeId, ByteBuf frame) {
    outbound.send(nodeId, frame);
  }

  @Override
  public void refreshMetadata(Runnable then) {
    metadata.refresh(then);
  }

  @Override
  public long nanoTime() {
    return clock.nanoTime();
  }
}
