package io.flexlog.client.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordHandler;
import io.flexlog.client.RecordStream;
import io.flexlog.client.Subscription;
import io.flexlog.client.TrimResult;
import io.flexlog.core.error.AtomicMemberFailedException;
import io.flexlog.core.error.AtomicOutcomeUnknownException;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.GroupAbortedException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.TrimResponseDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's machinery behind {@code FlexLog}: connections, in-flight appends, reads and
 * subscriptions, retries, topology refreshes.
 *
 * <p>Request ids: appends use their token's sequence, subscriptions ids from {@code 2^61}, reads
 * ids from {@code 2^62}; the ranges never meet, so an ERROR frame finds its request by id alone.
 *
 * <p>Topology: when a node answers UNKNOWN_COLOR or UNKNOWN_SHARD, the client fetches the topology
 * again (once per request) and retries; if the color is gone from the fresh topology the request
 * fails with {@code UnknownColorException}, else the node is behind and the request keeps retrying
 * until its deadline. Colors created at runtime so become usable without reconnecting.
 *
 * <p>Threading: all state below the public methods is confined to one event loop; public methods
 * may be called from any thread and hand work to the loop. Frames written during one loop turn are
 * flushed once at its end (natural batching). Topology fetches block, so they run on a separate
 * thread and hand their result to the loop.
 */
public final class ClientCore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientCore.class);
  private static final long SUBSCRIPTION_ID_BASE = 1L << 61;
  private static final long READ_ID_BASE = 1L << 62;
  private static final long ATOMIC_ID_BASE = 1L << 60;

  /** Trim request ids: above every subscription id ever used, below the read ids. */
  private static final long TRIM_ID_BASE = 3L << 60;

  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final FlexLogConfig config;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final long session = new SecureRandom().nextLong();
  private final AtomicLong sequence = new AtomicLong();
  private volatile Metadata metadata;

  private final LongObjectHashMap<PendingAppend> appends = new LongObjectHashMap<>();
  private final LongObjectHashMap<PendingRead> reads = new LongObjectHashMap<>();
  private final LongObjectHashMap<ShardStream> streams = new LongObjectHashMap<>();
  private final List<ClientSubscription> subscriptions = new ArrayList<>();
  private final Map<Integer, NodeConnection> connections = new HashMap<>();
  private final List<NodeConnection> dirty = new ArrayList<>();
  private final Runnable flushTask = this::flushDirty;
  private final Context context = new Context();
  private final ExecutorService fetcher;
  private final List<Runnable> afterRefresh = new ArrayList<>();
  private boolean refreshing;
  private boolean flushScheduled;
  private int roundRobin;
  private long readIds = READ_ID_BASE;
  private long subscriptionIds = SUBSCRIPTION_ID_BASE;
  private long atomicIds = ATOMIC_ID_BASE;
  private long trimIds = TRIM_ID_BASE;
  private final LongObjectHashMap<PendingTrim> trims = new LongObjectHashMap<>();
  private final LongObjectHashMap<PendingGroup> groups = new LongObjectHashMap<>();
  private final ScheduledFuture<?> timer;
  private volatile boolean closed;

  private ClientCore(FlexLogConfig config, EventLoopGroup group, Metadata metadata) {
    this.config = config;
    this.group = group;
    this.loop = group.next();
    this.metadata = metadata;
    this.fetcher =
        Executors.newSingleThreadExecutor(new DefaultThreadFactory("flexlog-metadata", true));
    long tickMs =
        Math.max(
            1,
            Math.min(
                100,
                Math.min(config.requestTimeout().toMillis(), config.readTimeout().toMillis())
                    / 10));
    this.timer =
        loop.scheduleAtFixedRate(this::checkDeadlines, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  /** Fetches the topology from the bootstrap servers and connects to the replica nodes. */
  public static ClientCore connect(FlexLogConfig config) {
    EventLoopGroup group = Transport.eventLoops("flexlog-client", 1);
    try {
      Metadata metadata = MetadataFetcher.fetch(group, config);
      ClientCore core = new ClientCore(config, group, metadata);
      core.loop.execute(core::connectAll);
      return core;
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
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
    if (loop.inEventLoop()) {
      throw new IllegalStateException("refreshMetadata() would block the client's event loop");
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(() -> refreshMetadata(() -> done.complete(null)));
    try {
      done.get(config.connectTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted while fetching the topology", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new FlexLogTimeoutException("no topology within " + config.connectTimeout());
    }
  }

  /** Resolves a color name, refreshing the topology once if it is not known yet. */
  public Color color(String name) {
    Optional<Color> color = topology().color(name);
    if (color.isEmpty() && !loop.inEventLoop()) {
      refreshMetadata();
      color = topology().color(name);
    }
    return color.orElseThrow(() -> unknownColor(name));
  }

  private UnknownColorException unknownColor(String name) {
    return new UnknownColorException(
        "unknown color '"
            + name
            + "'; the cluster has "
            + topology().colors().stream().map(Color::name).sorted().toList());
  }

  /** The shards that may hold records of a color, by id, so that key hashing is stable. */
  private List<Shard> shardsOf(int colorId) {
    List<Shard> shards = new ArrayList<>(topology().shardsInSubtree(colorId));
    shards.sort(Comparator.comparingInt(Shard::id));
    return shards;
  }

  // ---------------------------------------------------------------- topology refresh

  /** Fetches the topology on the fetcher thread (one fetch at a time), then runs {@code then}. */
  private void refreshMetadata(Runnable then) {
    afterRefresh.add(then);
    if (refreshing) {
      return;
    }
    refreshing = true;
    fetcher.execute(
        () -> {
          Metadata fetched = null;
          try {
            fetched = MetadataFetcher.fetch(group, config);
          } catch (RuntimeException e) {
            LOG.warn("cannot refresh the topology: {}", e.getMessage());
          }
          Metadata result = fetched;
          loop.execute(() -> onRefreshed(result));
        });
  }

  private void onRefreshed(Metadata fetched) {
    refreshing = false;
    if (fetched != null && fetched.topology().version() >= topology().version()) {
      applyMetadata(fetched);
    }
    List<Runnable> callbacks = new ArrayList<>(afterRefresh);
    afterRefresh.clear();
    callbacks.forEach(Runnable::run);
    flushDirty();
  }

  private void applyMetadata(Metadata fetched) {
    metadata = fetched;
    for (Iterator<Map.Entry<Integer, NodeConnection>> it = connections.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Integer, NodeConnection> entry = it.next();
      NodeAddress now = fetched.topology().nodes().get(entry.getKey());
      if (now == null || !now.equals(entry.getValue().node)) {
        entry.getValue().close(); // moved or gone: a new connection is made on next use
        it.remove();
        dirty.remove(entry.getValue());
      }
    }
  }

  // ---------------------------------------------------------------- appends

  /**
   * Appends a record. The caller must not modify {@code payload} until the future completes: it is
   * sent (and re-sent on retries) without a copy. Ownership of the buffer passes to the client.
   *
   * @param key picks the shard when the color has several (null: round robin); records with the
   *     same key go to the same shard as long as the color's shards do not change
   */
  public CompletableFuture<Long> append(String colorName, byte[] key, ByteBuf payload) {
    CompletableFuture<Long> future = new CompletableFuture<>();
    try {
      checkOpen();
      if (payload.readableBytes() > maxRecordBytes()) {
        throw new RecordTooLargeException(
            "record of "
                + payload.readableBytes()
                + " bytes exceeds the cluster's max.record.bytes="
                + maxRecordBytes());
      }
      long deadline = System.nanoTime() + config.deliveryTimeout().toNanos();
      PendingAppend append =
          new PendingAppend(
              sequence.incrementAndGet(),
              colorName,
              key != null,
              key == null ? 0 : KeyHash.of(key),
              payload,
              future,
              deadline);
      loop.execute(() -> startAppend(append));
    } catch (RuntimeException e) {
      payload.release();
      future.completeExceptionally(e);
    }
    return future;
  }

  private void startAppend(PendingAppend append) {
    if (append.future.isDone()) {
      return;
    }
    Optional<Color> color = topology().color(append.colorName);
    if (color.isEmpty()) {
      if (!append.refreshed) {
        append.refreshed = true;
        refreshMetadata(() -> startAppend(append));
      } else {
        failAppend(append, unknownColor(append.colorName));
      }
      return;
    }
    append.colorId = color.get().id();
    List<Shard> shards = shardsOf(append.colorId);
    if (shards.isEmpty()) {
      failAppend(
          append,
          new FlexLogException("color '" + append.colorName + "' has no shard to append to"));
      return;
    }
    int pick = append.hasKey ? append.keyHash : roundRobin++;
    append.shard = shards.get(Math.floorMod(pick, shards.size()));
    appends.put(append.sequence, append);
    sendAppend(append);
  }

  private void sendAppend(PendingAppend append) {
    append.attempts++;
    append.attemptDeadlineNs = System.nanoTime() + config.requestTimeout().toNanos();
    List<Integer> replicas = append.shard.replicaNodeIds();
    for (int i = 0; i < replicas.size(); i++) {
      if ((append.ackedMask & (1 << i)) != 0) {
        continue;
      }
      NodeConnection connection = connection(replicas.get(i));
      int length = append.payload.readableBytes();
      connection.write(
          AppendDescriptor.encodeHeader(
              ALLOC,
              append.sequence,
              session,
              append.sequence,
              append.colorId,
              append.shard.id(),
              length));
      connection.write(append.payload.retainedDuplicate());
      markDirty(connection);
    }
  }

  private void onAck(ByteBuf frame) {
    if (AppendAckDescriptor.tokenSession(frame) != session) {
      return;
    }
    PendingAppend append = appends.get(AppendAckDescriptor.tokenSequence(frame));
    if (append == null) {
      return;
    }
    int replica = append.shard.replicaNodeIds().indexOf(AppendAckDescriptor.replicaNodeId(frame));
    if (replica < 0) {
      return;
    }
    long sn = AppendAckDescriptor.sn(frame);
    if (append.sn != 0 && append.sn != sn) {
      failAppend(
          append,
          new FlexLogException(
              "replicas of shard "
                  + append.shard.id()
                  + " acknowledged different SNs ("
                  + append.sn
                  + ", "
                  + sn
                  + ") for one append to '"
                  + append.colorName
                  + "'"));
      return;
    }
    append.sn = sn;
    append.ackedMask |= 1 << replica;
    if (append.allAcked()) {
      appends.remove(append.sequence);
      append.payload.release();
      append.future.complete(sn);
    }
  }

  /** A node does not know the append's color or shard: refetch the topology once, then retry. */
  private void onAppendTopologyError(PendingAppend append, FlexLogException error) {
    if (append.refreshed) {
      return; // the node is behind our topology: the retry timer re-sends until the deadline
    }
    append.refreshed = true;
    refreshMetadata(
        () -> {
          if (append.future.isDone()) {
            return;
          }
          Optional<Color> color = topology().color(append.colorName);
          if (color.isEmpty() || color.get().id() != append.colorId) {
            failAppend(append, error);
          } else if (topology().shard(append.shard.id()).isEmpty()) {
            failAppend(
                append,
                new FlexLogException(
                    "shard "
                        + append.shard.id()
                        + " of color '"
                        + append.colorName
                        + "' was removed while an append to it was in flight; it may still"
                        + " appear, at most once"));
          } else {
            sendAppend(append);
          }
        });
  }

  private void failAppend(PendingAppend append, FlexLogException error) {
    appends.remove(append.sequence);
    append.payload.release();
    append.future.completeExceptionally(error);
  }

  // ---------------------------------------------------------------- atomic appends

  /**
   * Appends records to several colors, all or nothing (DESIGN §3.7): stages every member on every
   * replica of a shard of the broker color ({@code atomic.broker.color}), then commits the group;
   * the replicas forward each member to its color with the member's own token.
   *
   * @return SNs per color, in the order of that color's list
   */
  public CompletableFuture<Map<String, long[]>> appendAtomically(
      Map<String, List<byte[]>> records) {
    CompletableFuture<Map<String, long[]>> future = new CompletableFuture<>();
    try {
      checkOpen();
      PendingGroup group = newGroup(records, future);
      loop.execute(() -> startGroup(group));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  /** Validates everything before anything is staged; resolves colors (refreshing once). */
  private PendingGroup newGroup(
      Map<String, List<byte[]>> records, CompletableFuture<Map<String, long[]>> future) {
    if (records == null || records.isEmpty()) {
      throw new InvalidArgumentException("an atomic append needs at least one color");
    }
    List<String> names = new ArrayList<>();
    List<byte[]> members = new ArrayList<>();
    List<Integer> memberColor = new ArrayList<>();
    for (Map.Entry<String, List<byte[]>> entry : records.entrySet()) {
      String name = entry.getKey();
      if (name == null || entry.getValue() == null) {
        throw new InvalidArgumentException("an atomic append needs a color name and a list");
      }
      color(name);
      int colorIndex = names.size();
      names.add(name);
      List<byte[]> payloads = entry.getValue();
      for (int i = 0; i < payloads.size(); i++) {
        byte[] payload = payloads.get(i);
        if (payload == null) {
          throw new InvalidArgumentException("record " + i + " of color '" + name + "' is null");
        }
        if (payload.length > maxRecordBytes()) {
          throw new RecordTooLargeException(
              "record "
                  + i
                  + " of color '"
                  + name
                  + "' has "
                  + payload.length
                  + " bytes, over the cluster's max.record.bytes="
                  + maxRecordBytes());
        }
        members.add(payload);
        memberColor.add(colorIndex);
      }
    }
    if (members.isEmpty()) {
      throw new InvalidArgumentException("an atomic append needs at least one record");
    }
    if (members.size() > StageDescriptor.MAX_MEMBERS) {
      throw new InvalidArgumentException(
          "an atomic append has at most "
              + StageDescriptor.MAX_MEMBERS
              + " records, got "
              + members.size());
    }
    color(config.atomicBrokerColor());
    ByteBuf[] payloads = new ByteBuf[members.size()];
    for (int i = 0; i < payloads.length; i++) {
      payloads[i] = io.netty.buffer.Unpooled.wrappedBuffer(members.get(i));
    }
    return new PendingGroup(
        session,
        sequence.incrementAndGet(),
        List.copyOf(names),
        memberColor.stream().mapToInt(Integer::intValue).toArray(),
        payloads,
        future,
        System.nanoTime() + config.deliveryTimeout().toNanos());
  }

  private void startGroup(PendingGroup group) {
    if (group.future.isDone()) {
      return;
    }
    int colors = group.colorNames.size();
    group.colorIds = new int[colors];
    for (int c = 0; c < colors; c++) {
      Optional<Color> color = topology().color(group.colorNames.get(c));
      if (color.isEmpty()) {
        failGroup(group, unknownColor(group.colorNames.get(c)));
        return;
      }
      group.colorIds[c] = color.get().id();
    }
    Optional<Color> brokerColor = topology().color(config.atomicBrokerColor());
    List<Shard> brokers = brokerColor.map(c -> shardsOf(c.id())).orElse(List.of());
    if (brokers.isEmpty()) {
      failGroup(
          group,
          new FlexLogException(
              "broker color '" + config.atomicBrokerColor() + "' has no shard to stage on"));
      return;
    }
    group.broker = brokers.get(Math.floorMod(roundRobin++, brokers.size()));
    int count = group.memberCount();
    group.targetShard = new int[count];
    group.sequences = new long[count];
    group.stagedMask = new int[count];
    for (int i = 0; i < count; i++) {
      group.sequences[i] = sequence.incrementAndGet();
      List<Shard> shards = shardsOf(group.colorIds[group.memberColor[i]]);
      if (shards.isEmpty()) {
        failGroup(
            group,
            new FlexLogException(
                "color '" + group.colorNames.get(group.memberColor[i]) + "' has no shard"));
        return;
      }
      // Chosen from the token, and carried in STAGE, so every replica of the broker shard
      // forwards the member to the same shard.
      long mixed = (group.sequences[i] ^ session) * 0x9E3779B97F4A7C15L;
      group.targetShard[i] = shards.get(Math.floorMod(Long.hashCode(mixed), shards.size())).id();
    }
    // One id for the stages, then one per replica for its COMMIT_GROUP, so that an ERROR answer
    // to a commit names the replica it came from.
    group.requestId = atomicIds;
    atomicIds += 1 + group.broker.replicaNodeIds().size();
    groups.put(group.requestId, group);
    sendGroup(group);
  }

  /** Sends what the group's phase still needs: unacknowledged stages, or the commit. */
  private void sendGroup(PendingGroup group) {
    group.attempts++;
    group.attemptDeadlineNs = System.nanoTime() + config.requestTimeout().toNanos();
    List<Integer> replicas = group.broker.replicaNodeIds();
    for (int r = 0; r < replicas.size(); r++) {
      NodeConnection connection = connection(replicas.get(r));
      if (group.committing) {
        connection.write(
            CommitGroupDescriptor.encode(
                ALLOC,
                group.commitRequestId(r),
                group.groupHigh,
                group.groupLow,
                group.broker.id(),
                group.memberCount()));
      } else {
        for (int i = 0; i < group.memberCount(); i++) {
          if ((group.stagedMask[i] & (1 << r)) == 0) {
            writeStage(connection, group, i);
          }
        }
      }
      markDirty(connection);
    }
  }

  private void writeStage(NodeConnection connection, PendingGroup group, int index) {
    ByteBuf payload = group.payloads[index];
    connection.write(
        StageDescriptor.encodeHeader(
            ALLOC,
            group.requestId,
            group.groupHigh,
            group.groupLow,
            index,
            group.memberCount(),
            group.broker.id(),
            group.colorIds[group.memberColor[index]],
            group.targetShard[index],
            session,
            group.sequences[index],
            payload.readableBytes()));
    connection.write(payload.retainedDuplicate());
  }

  private void onStageAck(ByteBuf frame) {
    PendingGroup group = groups.get(FrameDescriptor.requestId(frame));
    if (group == null
        || group.committing
        || StageAckDescriptor.groupLow(frame) != group.groupLow
        || StageAckDescriptor.groupHigh(frame) != group.groupHigh) {
      return;
    }
    int replica = group.broker.replicaNodeIds().indexOf(StageAckDescriptor.replicaNodeId(frame));
    int index = StageAckDescriptor.memberIndex(frame);
    if (replica < 0 || index < 0 || index >= group.memberCount()) {
      return;
    }
    int before = group.stagedMask[index];
    group.stagedMask[index] |= 1 << replica;
    if (before != group.allReplicasMask() && group.stagedMask[index] == group.allReplicasMask()) {
      group.stagedMembers++;
      if (group.stagedMembers == group.memberCount()) {
        group.committing = true;
        for (int r = 0; r < group.broker.replicaNodeIds().size(); r++) {
          groups.put(group.commitRequestId(r), group);
        }
        sendGroup(group);
      }
    }
  }

  private void onGroupResult(ByteBuf frame) {
    PendingGroup group = groups.get(FrameDescriptor.requestId(frame));
    if (group == null
        || GroupResultDescriptor.groupLow(frame) != group.groupLow
        || GroupResultDescriptor.groupHigh(frame) != group.groupHigh) {
      return;
    }
    if (GroupResultDescriptor.count(frame) != group.memberCount()) {
      failGroup(
          group,
          new AtomicOutcomeUnknownException(
              "atomic group "
                  + group.describe()
                  + " may still appear: a replica answered "
                  + GroupResultDescriptor.count(frame)
                  + " SNs for an atomic append of "
                  + group.memberCount()
                  + " records"));
      return;
    }
    int colors = group.colorNames.size();
    int[] perColor = new int[colors];
    for (int c : group.memberColor) {
      perColor[c]++;
    }
    Map<String, long[]> result = new java.util.LinkedHashMap<>();
    long[][] sns = new long[colors][];
    for (int c = 0; c < colors; c++) {
      sns[c] = new long[perColor[c]];
      result.put(group.colorNames.get(c), sns[c]);
    }
    int[] filled = new int[colors];
    for (int i = 0; i < group.memberCount(); i++) {
      int c = group.memberColor[i];
      sns[c][filled[c]++] = GroupResultDescriptor.sn(frame, i);
    }
    if (removeGroup(group)) {
      group.release();
    }
    group.future.complete(result);
  }

  /**
   * Ends a group with an error. Before any COMMIT_GROUP was sent a typed failure means the group
   * can never appear; after, callers pass only {@link AtomicOutcomeUnknownException}, {@link
   * GroupAbortedException} (every replica aborted) or {@link AtomicMemberFailedException}.
   */
  private void failGroup(PendingGroup group, FlexLogException error) {
    if (removeGroup(group) || !group.future.isDone()) {
      group.release();
    }
    group.future.completeExceptionally(error);
  }

  /** Forgets the group's request ids; false if it was already forgotten. */
  private boolean removeGroup(PendingGroup group) {
    boolean removed = groups.remove(group.requestId) != null;
    if (group.broker != null) {
      for (int r = 0; r < group.broker.replicaNodeIds().size(); r++) {
        groups.remove(group.commitRequestId(r));
      }
    }
    return removed;
  }

  /**
   * An ERROR answering a COMMIT_GROUP. The group may appear from now on, so nothing but a definite
   * answer ends it: every replica aborted it (GROUP_ABORTED), a member failed for good after the
   * commit (ATOMIC_MEMBER_FAILED), or every replica aborted or forgot it (outcome unknown). Any
   * other error is retried with the next COMMIT_GROUP, until the delivery deadline.
   */
  private void onCommitError(PendingGroup group, long requestId, ErrorCode code, String message) {
    int replica = (int) (requestId - group.commitRequestId(0));
    if (replica < 0 || replica >= group.broker.replicaNodeIds().size()) {
      return; // an error for a STAGE sent before the commit: the stages all succeeded meanwhile
    }
    switch (code) {
      case GROUP_ABORTED -> group.abortedMask |= 1 << replica;
      case ATOMIC_OUTCOME_UNKNOWN -> group.unknownMask |= 1 << replica;
      case ATOMIC_MEMBER_FAILED -> {
        failGroup(group, new AtomicMemberFailedException(message));
        return;
      }
      default -> {
        LOG.debug(
            "commit of atomic group {} refused ({}: {}); retrying",
            group.describe(),
            code,
            message);
        return;
      }
    }
    int all = group.allReplicasMask();
    if (group.abortedMask == all) {
      failGroup(
          group,
          new GroupAbortedException(
              "every replica of broker shard "
                  + group.broker.id()
                  + " aborted atomic group "
                  + group.describe()
                  + " before it was committed (staged too long ago); none of its records will"
                  + " appear: "
                  + message));
    } else if ((group.abortedMask | group.unknownMask) == all) {
      failGroup(
          group,
          new AtomicOutcomeUnknownException(
              "atomic group "
                  + group.describe()
                  + " to "
                  + group.colorNames
                  + " is unknown to or aborted by every replica of broker shard "
                  + group.broker.id()
                  + " (finished and forgotten after its retention?); it may have appeared, all"
                  + " records or none: "
                  + message));
    }
  }

  private void checkGroups(long now) {
    List<PendingGroup> expired = null;
    // A committing group is listed once per request id: visit each once.
    for (PendingGroup group : groups.values().stream().distinct().toList()) {
      if (now - group.deliveryDeadlineNs > 0) {
        expired = expired == null ? new ArrayList<>() : expired;
        expired.add(group);
      } else if (now - group.attemptDeadlineNs > 0) {
        sendGroup(group);
      }
    }
    if (expired != null) {
      for (PendingGroup group : expired) {
        failGroup(group, groupTimeout(group, config.deliveryTimeout().toMillis() + " ms"));
      }
    }
  }

  /**
   * The error for a group that did not finish: before its commit a timeout (nothing can appear),
   * after it {@link AtomicOutcomeUnknownException}.
   */
  private FlexLogException groupTimeout(PendingGroup group, String within) {
    if (!group.committing) {
      return new FlexLogTimeoutException(
          "atomic append to "
              + group.colorNames
              + " not staged on every replica within "
              + within
              + "; nothing was committed, none of its records will appear");
    }
    return new AtomicOutcomeUnknownException(
        "atomic group "
            + group.describe()
            + " to "
            + group.colorNames
            + " was committed but no replica of broker shard "
            + group.broker.id()
            + " answered its SNs within "
            + within
            + " after "
            + group.attempts
            + " attempts; it may still appear, all records or none");
  }

  // ---------------------------------------------------------------- reads

  /** Reads the record of a color at an SN: empty for a hole. */
  public CompletableFuture<Optional<LogRecord>> read(String colorName, long sn) {
    CompletableFuture<Optional<LogRecord>> future = new CompletableFuture<>();
    try {
      checkOpen();
      long deadline = System.nanoTime() + config.readTimeout().toNanos();
      PendingRead read = new PendingRead(colorName, sn, future, deadline);
      loop.execute(() -> startRead(read));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  private void startRead(PendingRead read) {
    if (read.future.isDone()) {
      return;
    }
    Optional<Color> color = topology().color(read.colorName);
    if (color.isEmpty()) {
      if (!read.refreshed) {
        read.refreshed = true;
        refreshMetadata(() -> startRead(read));
      } else {
        read.future.completeExceptionally(unknownColor(read.colorName));
      }
      return;
    }
    List<Shard> shards = shardsOf(color.get().id());
    if (shards.isEmpty()) {
      read.future.completeExceptionally(
          new FlexLogException("color '" + read.colorName + "' has no shard to read from"));
      return;
    }
    read.target(color.get().id(), shards, readIds);
    readIds += shards.size();
    for (int i = 0; i < read.shards.size(); i++) {
      reads.put(read.firstRequestId + i, read);
      read.replicaCursor[i] =
          Math.floorMod(roundRobin++, read.shards.get(i).replicaNodeIds().size());
      sendRead(read, i);
    }
  }

  private void sendRead(PendingRead read, int shardIndex) {
    List<Integer> replicas = read.shards.get(shardIndex).replicaNodeIds();
    int replica = replicas.get(read.replicaCursor[shardIndex] % replicas.size());
    NodeConnection connection = connection(replica);
    connection.write(
        ReadDescriptor.encode(ALLOC, read.firstRequestId + shardIndex, read.colorId, read.sn));
    markDirty(connection);
  }

  private void onReadResponse(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    PendingRead read = reads.get(requestId);
    if (read == null || read.future.isDone()) {
      return;
    }
    int shardIndex = (int) (requestId - read.firstRequestId);
    switch (ReadResponseDescriptor.status(frame)) {
      case ReadResponseDescriptor.FOUND -> {
        byte[] payload = ByteBufUtil.getBytes(ReadResponseDescriptor.payload(frame));
        finishRead(read);
        read.future.complete(Optional.of(new LogRecord(read.colorName, read.sn, payload)));
      }
      case ReadResponseDescriptor.ABSENT -> {
        read.absent[shardIndex] = true;
        if (read.allAbsent()) {
          finishRead(read);
          read.future.complete(Optional.empty());
        }
      }
      case ReadResponseDescriptor.TRIMMED -> {
        finishRead(read);
        read.future.completeExceptionally(
            new TrimmedException(
                "SN "
                    + read.sn
                    + " of color '"
                    + read.colorName
                    + "' is at or below the trim point "
                    + ReadResponseDescriptor.bound(frame)));
      }
      default -> retryRead(read, shardIndex);
    }
  }

  /** Asks the next replica of the shard; once each was asked, backs off (1 ms doubling to 50). */
  private void retryRead(PendingRead read, int shardIndex) {
    read.retries++;
    read.replicaCursor[shardIndex]++;
    int replicas = read.shards.get(shardIndex).replicaNodeIds().size();
    if (read.retries < replicas) {
      sendRead(read, shardIndex);
      return;
    }
    long delayUs = Math.min(50_000, 1000L << Math.min(6, read.retries / replicas - 1));
    long firstRequestId = read.firstRequestId;
    loop.schedule(
        () -> {
          if (!read.future.isDone() && read.firstRequestId == firstRequestId) {
            sendRead(read, shardIndex);
            flushDirty();
          }
        },
        delayUs,
        TimeUnit.MICROSECONDS);
  }

  /** A node does not know the read's color or shard: refetch the topology once, then retry. */
  private void onReadTopologyError(PendingRead read, int shardIndex, FlexLogException error) {
    if (read.refreshed) {
      retryRead(read, shardIndex); // the node is behind our topology: retry until the deadline
      return;
    }
    read.refreshed = true;
    finishRead(read);
    refreshMetadata(
        () -> {
          if (read.future.isDone()) {
            return;
          }
          if (topology().color(read.colorName).isEmpty()) {
            read.future.completeExceptionally(error);
          } else {
            startRead(read); // the color's shards may have changed: target them afresh
          }
        });
  }

  private void finishRead(PendingRead read) {
    for (int i = 0; i < read.shards.size(); i++) {
      reads.remove(read.firstRequestId + i);
    }
  }

  // ---------------------------------------------------------------- trim

  /**
   * Trims a color (DESIGN §3.5): sends TRIM to every replica node of every shard in the color's
   * subtree and completes once each recorded the trim point durably. A refusal from any node fails
   * the trim with that node's typed error (the nodes that accepted keep their trim point; trimming
   * again at the same SN is harmless).
   */
  public CompletableFuture<TrimResult> trim(String colorName, long sn) {
    CompletableFuture<TrimResult> future = new CompletableFuture<>();
    try {
      checkOpen();
      if (sn < 1) {
        throw new InvalidArgumentException("a trim SN must be >= 1, got " + sn);
      }
      Color color = color(colorName);
      int[] nodeIds =
          shardsOf(color.id()).stream()
              .flatMap(shard -> shard.replicaNodeIds().stream())
              .mapToInt(Integer::intValue)
              .distinct()
              .sorted()
              .toArray();
      if (nodeIds.length == 0) {
        throw new FlexLogException("color '" + colorName + "' has no shard to trim");
      }
      long deadline = System.nanoTime() + config.requestTimeout().toNanos();
      loop.execute(() -> startTrim(color, sn, nodeIds, future, deadline));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  private void startTrim(
      Color color, long sn, int[] nodeIds, CompletableFuture<TrimResult> future, long deadline) {
    PendingTrim trim =
        new PendingTrim(color.name(), color.id(), sn, nodeIds, trimIds, future, deadline);
    trimIds += nodeIds.length;
    for (int i = 0; i < nodeIds.length; i++) {
      trims.put(trim.firstRequestId + i, trim);
      NodeConnection connection = connection(nodeIds[i]);
      connection.write(TrimDescriptor.encode(ALLOC, trim.firstRequestId + i, color.id(), sn));
      markDirty(connection);
    }
  }

  private void onTrimResponse(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    PendingTrim trim = trims.get(requestId);
    if (trim == null || trim.future.isDone()) {
      return;
    }
    if (trim.onAnswer(
        requestId, TrimResponseDescriptor.trimPoint(frame), TrimResponseDescriptor.tail(frame))) {
      finishTrim(trim);
      trim.future.complete(trim.result());
    }
  }

  private void onTrimError(PendingTrim trim, long requestId, ErrorCode code, String message) {
    finishTrim(trim);
    trim.future.completeExceptionally(
        FlexLogException.fromWire(
            code,
            "trim of color '"
                + trim.colorName
                + "' at SN "
                + trim.sn
                + " refused by replica node "
                + trim.nodeOf(requestId)
                + ": "
                + message));
  }

  private void finishTrim(PendingTrim trim) {
    for (int i = 0; i < trim.nodeIds.length; i++) {
      trims.remove(trim.firstRequestId + i);
    }
  }

  private void checkTrims(long now) {
    List<PendingTrim> late =
        trims.values().stream()
            .distinct()
            .filter(trim -> now - trim.deadlineNs > 0)
            .collect(Collectors.toList());
    for (PendingTrim trim : late) {
      finishTrim(trim);
      trim.future.completeExceptionally(
          new FlexLogTimeoutException(
              "trim of color '"
                  + trim.colorName
                  + "' at SN "
                  + trim.sn
                  + " not acknowledged by replica nodes "
                  + trim.unanswered()
                  + " within "
                  + config.requestTimeout().toMillis()
                  + " ms; the nodes that answered keep the trim point"));
    }
  }

  // ---------------------------------------------------------------- subscriptions

  /** Opens a subscription read by the application (see {@link RecordStream}). */
  public RecordStream subscribe(String colorName, long fromSn) {
    return openSubscription(colorName, fromSn);
  }

  /** Opens a subscription that calls {@code handler} on its own thread. */
  public Subscription subscribe(String colorName, long fromSn, RecordHandler handler) {
    if (handler == null) {
      throw new InvalidArgumentException("the record handler must not be null");
    }
    HandlerSubscription subscription =
        new HandlerSubscription(openSubscription(colorName, fromSn), handler);
    subscription.start();
    return subscription;
  }

  private ClientSubscription openSubscription(String colorName, long fromSn) {
    checkOpen();
    if (fromSn < 0) {
      throw new InvalidArgumentException(
          "a subscription starts at an SN >= 0 (0: from the beginning), got " + fromSn);
    }
    Color color = color(colorName);
    Topology topology = topology(); // one snapshot: the shard set and its version
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
            config.subscribeWindowBytes(),
            config.requestTimeout().toNanos(),
            config.subscribeLivenessTimeout().toNanos(),
            ThreadLocalRandom.current().nextInt(1 << 16),
            context,
            loop);
    loop.execute(
        () -> {
          if (closed) {
            subscription.fail(new FlexLogException("the FlexLog client was closed"));
            return;
          }
          subscriptions.add(subscription);
          subscription.start();
        });
    return subscription;
  }

  private void onSubscriptionFrame(ByteBuf frame) {
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

  private void onConnectionLost(int nodeId) {
    for (int i = 0; i < subscriptions.size(); i++) {
      subscriptions.get(i).onConnectionLost(nodeId);
    }
    flushDirty();
  }

  /** The loop-side services a subscription uses, over this client's connections. */
  private final class Context implements SubscriptionContext {
    @Override
    public Topology topology() {
      return ClientCore.this.topology();
    }

    @Override
    public ByteBufAllocator alloc() {
      return ALLOC;
    }

    @Override
    public long newSubscriptionId() {
      return subscriptionIds++;
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
      NodeConnection connection = connection(nodeId);
      connection.write(frame);
      markDirty(connection);
    }

    @Override
    public void refreshMetadata(Runnable then) {
      ClientCore.this.refreshMetadata(then);
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }
  }

  // ---------------------------------------------------------------- errors and deadlines

  private void onError(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    ErrorCode code = ErrorDescriptor.code(frame);
    String message = ErrorDescriptor.message(frame);
    boolean topologyError = code == ErrorCode.UNKNOWN_COLOR || code == ErrorCode.UNKNOWN_SHARD;
    if (requestId >= READ_ID_BASE) {
      PendingRead read = reads.get(requestId);
      if (read != null) {
        FlexLogException error = FlexLogException.fromWire(code, message);
        if (topologyError) {
          onReadTopologyError(read, (int) (requestId - read.firstRequestId), error);
        } else {
          finishRead(read);
          read.future.completeExceptionally(error);
        }
      }
      return;
    }
    if (requestId >= TRIM_ID_BASE) {
      PendingTrim trim = trims.get(requestId);
      if (trim != null && !trim.future.isDone()) {
        onTrimError(trim, requestId, code, message);
      }
      return;
    }
    if (requestId >= ATOMIC_ID_BASE && requestId < SUBSCRIPTION_ID_BASE) {
      PendingGroup group = groups.get(requestId);
      if (group != null && group.committing) {
        onCommitError(group, requestId, code, message);
      } else if (group != null && code != ErrorCode.NOT_READY) {
        failGroup(group, FlexLogException.fromWire(code, message)); // nothing committed yet
      }
      return;
    }
    if (requestId >= SUBSCRIPTION_ID_BASE) {
      ShardStream stream = streams.get(requestId);
      if (stream != null) {
        stream.owner.onError(stream, code, message);
      }
      return;
    }
    PendingAppend append = appends.get(requestId);
    if (append == null) {
      if (requestId == 0) {
        LOG.warn("node reports a connection error {}: {}", code, message);
      }
      return;
    }
    if (code == ErrorCode.NOT_READY) {
      return;
    }
    if (topologyError) {
      onAppendTopologyError(append, FlexLogException.fromWire(code, message));
      return;
    }
    failAppend(append, FlexLogException.fromWire(code, message));
  }

  private void checkDeadlines() {
    long now = System.nanoTime();
    checkAppends(now);
    if (!groups.isEmpty()) {
      checkGroups(now);
    }
    for (int i = subscriptions.size() - 1; i >= 0; i--) {
      ClientSubscription subscription = subscriptions.get(i);
      if (subscription.isStopped()) {
        subscriptions.remove(i);
      } else {
        subscription.onTick(now);
      }
    }
    if (!reads.isEmpty()) {
      checkReads(now);
    }
    if (!trims.isEmpty()) {
      checkTrims(now);
    }
    flushDirty();
  }

  private void checkAppends(long now) {
    List<PendingAppend> expired = null;
    for (Iterator<PendingAppend> it = appends.values().iterator(); it.hasNext(); ) {
      PendingAppend append = it.next();
      if (now - append.deliveryDeadlineNs > 0) {
        expired = expired == null ? new ArrayList<>() : expired;
        expired.add(append);
      } else if (now - append.attemptDeadlineNs > 0) {
        sendAppend(append);
      }
    }
    if (expired != null) {
      for (PendingAppend append : expired) {
        failAppend(
            append,
            new FlexLogTimeoutException(
                "append to color '"
                    + append.colorName
                    + "' not acknowledged by every replica of shard "
                    + append.shard.id()
                    + " within "
                    + config.deliveryTimeout().toMillis()
                    + " ms after "
                    + append.attempts
                    + " attempts; it may still appear, at most once"));
      }
    }
  }

  private void checkReads(long now) {
    List<PendingRead> late =
        reads.values().stream()
            .distinct()
            .filter(read -> now - read.deadlineNs > 0)
            .collect(Collectors.toList());
    for (PendingRead read : late) {
      finishRead(read);
      read.future.completeExceptionally(
          new FlexLogTimeoutException(
              "read of color '"
                  + read.colorName
                  + "' at SN "
                  + read.sn
                  + " still undecided after "
                  + config.readTimeout().toMillis()
                  + " ms ("
                  + read.retries
                  + " replica retries)"));
    }
  }

  // ---------------------------------------------------------------- connections

  private void connectAll() {
    for (Shard shard : topology().shards()) {
      for (int replica : shard.replicaNodeIds()) {
        connection(replica).connect();
      }
    }
  }

  private NodeConnection connection(int nodeId) {
    NodeConnection connection = connections.get(nodeId);
    if (connection == null) {
      connection =
          new NodeConnection(
              topology().node(nodeId), loop, Handler::new, () -> onConnectionLost(nodeId));
      connections.put(nodeId, connection);
    }
    return connection;
  }

  private void markDirty(NodeConnection connection) {
    if (!dirty.contains(connection)) {
      dirty.add(connection);
    }
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(flushTask);
    }
  }

  private void flushDirty() {
    flushScheduled = false;
    for (NodeConnection connection : dirty) {
      connection.flush();
    }
    dirty.clear();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this FlexLog client is closed");
    }
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
              new ArrayList<>(appends.values()).forEach(a -> failAppend(a, error));
              new ArrayList<>(groups.values())
                  .stream()
                      .distinct()
                      .forEach(
                          g ->
                              failGroup(
                                  g, g.committing ? groupTimeout(g, "the client's close") : error));
              new ArrayList<>(reads.values())
                  .stream()
                      .distinct()
                      .forEach(
                          read -> {
                            finishRead(read);
                            read.future.completeExceptionally(error);
                          });
              new ArrayList<>(trims.values())
                  .stream()
                      .distinct()
                      .forEach(
                          trim -> {
                            finishTrim(trim);
                            trim.future.completeExceptionally(error);
                          });
              subscriptions.forEach(s -> s.fail(error));
              subscriptions.clear();
              flushDirty();
              connections.values().forEach(NodeConnection::close);
            })
        .syncUninterruptibly();
    fetcher.shutdownNow();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Decodes responses on a node connection; runs on the client loop. */
  private final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        switch (FrameDescriptor.type(frame)) {
          case MessageType.APPEND_ACK -> onAck(frame);
          case MessageType.READ_RESPONSE -> onReadResponse(frame);
          case MessageType.SUBSCRIBE_RECORDS,
                  MessageType.SUBSCRIBE_PROGRESS,
                  MessageType.TOPOLOGY_MARK ->
              onSubscriptionFrame(frame);
          case MessageType.STAGE_ACK -> onStageAck(frame);
          case MessageType.GROUP_RESULT -> onGroupResult(frame);
          case MessageType.TRIM_RESPONSE -> onTrimResponse(frame);
          case MessageType.ERROR -> onError(frame);
          default ->
              LOG.warn(
                  "unexpected {} from {}",
                  MessageType.name(FrameDescriptor.type(frame)),
                  ctx.channel().remoteAddress());
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ConnectionErrors.closeOnError(ctx, cause, LOG);
    }
  }
}
