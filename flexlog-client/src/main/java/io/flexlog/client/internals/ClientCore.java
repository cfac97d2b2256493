package io.flexlog.client.internals;

import io.flexlog.client.ColorTail;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordHandler;
import io.flexlog.client.RecordStream;
import io.flexlog.client.Subscription;
import io.flexlog.client.TrimResult;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's conductor behind {@code FlexLog}: owns the event loop, the connections and the
 * metadata fetcher thread, wires the protocol roles ({@link Appends}, {@link AtomicGroups}, {@link
 * Reads}, {@link Trims}, {@link Subscriptions}, {@link ClientMetadata}) to them, and runs the
 * roles' deadline checks on a timer. See the package documentation for who talks to whom.
 *
 * <p>Threading: public methods may be called from any thread; they check that the client is open
 * and hand work to the roles, which move it to the loop.
 */
public final class ClientCore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientCore.class);

  private final EventLoopGroup group;
  private final EventLoop loop;
  private final ExecutorService fetcherThread;
  private final Connections connections;
  private final ClientMetadata metadata;
  private final Appends appends;
  private final AtomicGroups groups;
  private final Reads reads;
  private final Trims trims;
  private final Tails tails;
  private final Subscriptions subscriptions;
  private final ClientRoles roles;
  private final ScheduledFuture<?> timer;
  private volatile boolean closed;

  private ClientCore(FlexLogConfig config, EventLoopGroup group, Metadata initial) {
    this.group = group;
    this.loop = group.next();
    this.fetcherThread =
        Executors.newSingleThreadExecutor(new DefaultThreadFactory("flexlog-metadata", true));
    this.connections =
        new Connections(loop, this::topology, this::newHandler, this::onConnectionLost);
    this.roles =
        new ClientRoles(
            config,
            initial,
            connections,
            new NettyLoop(loop),
            NanoClock.SYSTEM,
            onLoop -> fetch(config, onLoop),
            connections::retain,
            SessionIds.random());
    this.metadata = roles.metadata;
    this.appends = roles.appends;
    this.groups = roles.groups;
    this.reads = roles.reads;
    this.trims = roles.trims;
    this.tails = roles.tails;
    this.subscriptions = roles.subscriptions;
    long tickMs = ClientRoles.tickMs(config);
    this.timer =
        loop.scheduleAtFixedRate(roles::checkDeadlines, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  /** Fetches the topology from the bootstrap servers and connects to the replica nodes. */
  public static ClientCore connect(FlexLogConfig config) {
    EventLoopGroup group = Transport.eventLoops("flexlog-client", 1);
    try {
      Metadata metadata = MetadataFetcher.fetch(group, config);
      ClientCore core = new ClientCore(config, group, metadata);
      core.loop.execute(core.connections::connectAll);
      return core;
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Runs one blocking fetch on the fetcher thread and hands its result (or null) to the loop. */
  private void fetch(FlexLogConfig config, Consumer<Metadata> onLoop) {
    fetcherThread.execute(
        () -> {
          Metadata fetched = null;
          try {
            fetched = MetadataFetcher.fetch(group, config);
          } catch (RuntimeException e) {
            LOG.warn("cannot refresh the topology: {}", e.getMessage());
          }
          Metadata result = fetched;
          loop.execute(() -> metadata.onFetched(result));
        });
  }

  private InboundHandler newHandler() {
    return new InboundHandler(roles.inbound);
  }

  private void onConnectionLost(int nodeId) {
    roles.onConnectionLost(nodeId);
  }

  public Topology topology() {
    return metadata.topology();
  }

  public int maxRecordBytes() {
    return metadata.maxRecordBytes();
  }

  /**
   * Fetches the topology again and waits for it; for colors created after this client connected.
   * Must not be called on the client's event loop (from a future's callback, say).
   */
  public void refreshMetadata() {
    metadata.refreshAndWait();
  }

  /** Resolves a color name, refreshing the topology once if it is not known yet. */
  public Color color(String name) {
    return metadata.color(name);
  }

  /**
   * Appends a record; see {@link Appends#append}. Ownership of {@code payload} passes to the
   * client, which sends it without a copy: the caller must not modify it until the future
   * completes.
   */
  public CompletableFuture<Long> append(String colorName, byte[] key, ByteBuf payload) {
    if (closed) {
      payload.release();
      return CompletableFuture.failedFuture(closedError());
    }
    return appends.append(colorName, key, payload);
  }

  /**
   * Appends records of one color to one of its shards in one APPEND_BATCH, each record under its
   * own token; see {@link BatchAppends}. Ownership of the buffers passes to the client. {@code
   * listener} is told each record's outcome on the client's event loop.
   *
   * @param whole null, or one buffer holding exactly the payloads back to back (the payloads being
   *     views of it): sent as one piece when a frame carries the whole batch
   */
  public void appendBatch(
      String colorName,
      int colorId,
      int shardId,
      ByteBuf[] payloads,
      ByteBuf whole,
      BatchListener listener) {
    if (closed) {
      IllegalStateException error = closedError();
      if (whole != null) {
        whole.release();
      }
      for (int i = 0; i < payloads.length; i++) {
        payloads[i].release();
        listener.onFailed(i, new FlexLogException(error.getMessage()));
      }
      return;
    }
    roles.batches.append(colorName, colorId, shardId, payloads, whole, listener);
  }

  /** Runs {@code task} on the client's event loop. */
  public void execute(Runnable task) {
    loop.execute(task);
  }

  /** Runs {@code task} on the client's event loop after {@code delayNs}. */
  public void schedule(Runnable task, long delayNs) {
    loop.schedule(task, delayNs, TimeUnit.NANOSECONDS);
  }

  /** The shards an append to the color may go to, sorted by id (empty for an unknown color). */
  public List<Shard> shardsOf(int colorId) {
    return metadata.shardsOf(colorId);
  }

  /**
   * Appends records to several colors, all or nothing; see {@link AtomicGroups}.
   *
   * @return SNs per color, in the order of that color's list
   */
  public CompletableFuture<Map<String, long[]>> appendAtomically(
      Map<String, List<byte[]>> records) {
    return closed
        ? CompletableFuture.failedFuture(closedError())
        : groups.appendAtomically(records);
  }

  /** Reads the record of a color at an SN: empty for a hole. */
  public CompletableFuture<Optional<LogRecord>> read(String colorName, long sn) {
    return closed ? CompletableFuture.failedFuture(closedError()) : reads.read(colorName, sn);
  }

  /** Trims a color at an SN on every replica node of its subtree; see {@link Trims}. */
  public CompletableFuture<TrimResult> trim(String colorName, long sn) {
    return closed ? CompletableFuture.failedFuture(closedError()) : trims.trim(colorName, sn);
  }

  /** The head and tail of a color; see {@link Tails}. */
  public CompletableFuture<ColorTail> tail(String colorName) {
    return closed ? CompletableFuture.failedFuture(closedError()) : tails.tail(colorName);
  }

  /** Opens a subscription read by the application (see {@link RecordStream}). */
  public RecordStream subscribe(String colorName, long fromSn) {
    checkOpen();
    return subscriptions.open(colorName, fromSn);
  }

  /**
   * Opens a subscription to one shard of a color's subtree (see {@link Subscriptions#openShard}).
   */
  public RecordStream subscribeShard(String colorName, int shardId, long fromSn) {
    return subscribe(colorName, shardId, fromSn, null);
  }

  /**
   * Opens a subscription read by the application, to the whole color ({@code shardId < 0}) or to
   * one shard of its subtree, and tells {@code onAvailable} (if not null; run on the event loop, it
   * must not block) whenever it has records to take or failed: for a reader that waits on many
   * subscriptions at once.
   */
  public RecordStream subscribe(String colorName, int shardId, long fromSn, Runnable onAvailable) {
    checkOpen();
    ClientSubscription subscription =
        shardId < 0
            ? subscriptions.open(colorName, fromSn)
            : subscriptions.openShard(colorName, shardId, fromSn);
    if (onAvailable != null) {
      subscription.onAvailable(onAvailable);
    }
    return subscription;
  }

  /** Opens a subscription that calls {@code handler} on its own thread. */
  public Subscription subscribe(String colorName, long fromSn, RecordHandler handler) {
    if (handler == null) {
      throw new InvalidArgumentException("the record handler must not be null");
    }
    checkOpen();
    return subscriptions.open(colorName, fromSn, handler);
  }

  private void checkOpen() {
    if (closed) {
      throw closedError();
    }
  }

  private static IllegalStateException closedError() {
    return new IllegalStateException("this FlexLog client is closed");
  }

  /** Fails what is still in flight and releases the connections. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    loop.submit(
            () -> {
              timer.cancel(false);
              FlexLogException error = new FlexLogException("the FlexLog client was closed");
              roles.failAll(error);
              connections.flush();
              connections.closeAll();
            })
        .syncUninterruptibly();
    fetcherThread.shutdownNow();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** The Netty event loop as the roles see it. */
  private static final class NettyLoop implements ClientLoop {
    private final EventLoop loop;

    NettyLoop(EventLoop loop) {
      this.loop = loop;
    }

    @Override
    public void execute(Runnable task) {
      loop.execute(task);
    }

    @Override
    public void schedule(Runnable task, long delayNs) {
      loop.schedule(task, delayNs, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean inLoop() {
      return loop.inEventLoop();
    }
  }
}
