package io.flexlog.replica.atomic;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.util.Backoff;
import io.flexlog.replica.replication.ReplicaRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the members of groups with a durable END: each member as an APPEND with its original
 * token to every replica of its target shard, again with capped exponential backoff until every
 * replica acknowledged one SN, or until an error that retrying cannot cure ({@link ForwardErrors})
 * fails it for good (logged once, counted in {@link AtomicAppends#FORWARD_FAILURES_METRIC}). Once
 * every member of a group is placed or failed, the group goes to {@code onForwarded}.
 *
 * <p>Threading: confined to the replica's event loop.
 */
final class Forwarder {
  private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
  private static final int MAX_DOUBLINGS = 20;
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final int nodeId;
  private final Supplier<Topology> topology;
  private final StagingLog log;
  private final ForwardTransport transport;
  private final ReplicaRuntime scheduler;
  private final MeterRegistry registry;
  private final Consumer<StagedGroup> onForwarded;
  private final Backoff retryBackoff;
  private final long retryMaxNs;

  private final Map<TokenKey, MemberRef> forwarding = new HashMap<>();
  private final Long2ObjectHashMap<MemberRef> forwardingByRequest = new Long2ObjectHashMap<>();
  private final List<StagedGroup> unfinished = new ArrayList<>();
  private long forwardIds;

  /**
   * @param onForwarded called once per group when every member is placed or failed for good
   */
  Forwarder(
      int nodeId,
      Supplier<Topology> topology,
      StagingLog log,
      ForwardTransport transport,
      ReplicaRuntime scheduler,
      AtomicConfig config,
      MeterRegistry registry,
      Consumer<StagedGroup> onForwarded) {
    this.nodeId = nodeId;
    this.topology = topology;
    this.log = log;
    this.transport = transport;
    this.scheduler = scheduler;
    this.registry = registry;
    this.onForwarded = onForwarded;
    this.retryBackoff = new Backoff(config.forwardRetry(), config.forwardRetryMax(), 2.0);
    this.retryMaxNs = config.forwardRetryMax().toNanos();
  }

  /**
   * Starts (or, after a restart, resumes) forwarding every member of {@code group} that is neither
   * failed nor acknowledged by every replica of its target shard, and flushes the transport.
   */
  void start(StagedGroup group) {
    if (!unfinished.contains(group)) {
      unfinished.add(group);
    }
    long now = scheduler.nanoTime();
    for (int i = 0; i < group.memberCount; i++) {
      if (group.sns[i] < 0 || (group.sns[i] != Sn.NONE && allAcked(group, i))) {
        continue;
      }
      if (group.forwardRequestId[i] == 0) {
        group.forwardRequestId[i] = ++forwardIds;
      }
      MemberRef ref = new MemberRef(group, i);
      forwarding.put(new TokenKey(group.tokenSession[i], group.tokenSequence[i]), ref);
      forwardingByRequest.put(group.forwardRequestId[i], ref);
      group.forwardAttempts[i] = 0;
      sendMember(group, i, now);
    }
    transport.flush();
  }

  /** Whether any group is still being forwarded. */
  boolean isForwarding() {
    return !unfinished.isEmpty();
  }

  /** Sends again every member whose backoff has elapsed at {@code now}; the caller flushes. */
  void resendDue(long now) {
    for (int g = 0; g < unfinished.size(); g++) {
      StagedGroup group = unfinished.get(g);
      for (int i = 0; i < group.memberCount; i++) {
        if (group.sns[i] >= 0
            && now - group.nextSendNs[i] >= 0
            && forwarding.containsKey(
                new TokenKey(group.tokenSession[i], group.tokenSequence[i]))) {
          sendMember(group, i, now);
        }
      }
    }
  }

  /**
   * The delay after send number {@code attempt} (0 for the first) of a member: the forward retry
   * doubled per attempt up to the forward retry max, and the max itself from the {@value
   * #MAX_DOUBLINGS}th attempt on, whatever the ratio of max to first delay.
   */
  long retryDelayNs(int attempt) {
    return attempt >= MAX_DOUBLINGS ? retryMaxNs : retryBackoff.delayNs(attempt);
  }

  private boolean allAcked(StagedGroup group, int index) {
    Optional<Shard> shard = topology.get().shard(group.targetShard[index]);
    return shard.isPresent()
        && group.ackedMask[index] == (1 << shard.get().replicaNodeIds().size()) - 1;
  }

  /**
   * Sends a member as an APPEND to each replica of its target shard that has not acked it, and
   * schedules the next attempt with capped exponential backoff. A target this replica's topology no
   * longer has fails the member for good.
   */
  private void sendMember(StagedGroup group, int index, long now) {
    int targetShard = group.targetShard[index];
    int targetColor = group.targetColor[index];
    Topology current = topology.get();
    ErrorCode gone = ForwardErrors.targetGone(current, targetColor, targetShard);
    if (gone == ErrorCode.UNKNOWN_COLOR) {
      fail(group, index, gone, "target color id " + targetColor + " is gone");
      return;
    }
    if (gone != null) {
      fail(
          group,
          index,
          gone,
          "target shard " + targetShard + " of color id " + targetColor + " is gone");
      return;
    }
    group.nextSendNs[index] = now + retryDelayNs(group.forwardAttempts[index]++);
    List<Integer> replicas = current.shard(targetShard).orElseThrow().replicaNodeIds();
    ByteBuf payload = log.memberBody(group.memberAddress[index]);
    for (int r = 0; r < replicas.size(); r++) {
      if ((group.ackedMask[index] & (1 << r)) != 0) {
        continue;
      }
      ByteBuf header =
          AppendDescriptor.encodeHeader(
              ALLOC,
              group.forwardRequestId[index],
              group.tokenSession[index],
              group.tokenSequence[index],
              targetColor,
              targetShard,
              payload.readableBytes());
      transport.send(replicas.get(r), Unpooled.wrappedBuffer(header, payload.retainedSlice()));
    }
  }

  /**
   * A frame from a replica of a target shard: APPEND_ACK counts towards its member; ERROR is
   * classified: a permanent one fails the member, a transient one waits for the next attempt. The
   * caller keeps ownership of the frame.
   */
  void onPeerFrame(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    if (type == MessageType.ERROR) {
      onError(frame);
    } else if (type == MessageType.APPEND_ACK) {
      onAck(frame);
    }
  }

  private void onAck(ByteBuf frame) {
    MemberRef ref =
        forwarding.get(
            new TokenKey(
                AppendAckDescriptor.tokenSession(frame), AppendAckDescriptor.tokenSequence(frame)));
    if (ref == null) {
      return;
    }
    StagedGroup group = ref.group();
    int index = ref.index();
    Optional<Shard> shard = topology.get().shard(group.targetShard[index]);
    int replica =
        shard.isEmpty()
            ? -1
            : shard.get().replicaNodeIds().indexOf(AppendAckDescriptor.replicaNodeId(frame));
    if (replica < 0) {
      return;
    }
    long sn = AppendAckDescriptor.sn(frame);
    if (group.sns[index] != Sn.NONE && group.sns[index] != sn) {
      LOG.error(
          "replica {}: member {} of group {} acknowledged at SNs {} and {}",
          nodeId,
          index,
          group.describe(),
          group.sns[index],
          sn);
      return;
    }
    group.sns[index] = sn;
    group.ackedMask[index] |= 1 << replica;
    if (group.ackedMask[index] == (1 << shard.get().replicaNodeIds().size()) - 1) {
      resolved(group, index);
    }
  }

  private void onError(ByteBuf frame) {
    MemberRef ref = forwardingByRequest.get(FrameDescriptor.requestId(frame));
    ErrorCode code = ErrorDescriptor.code(frame);
    String message = ErrorDescriptor.message(frame);
    if (ref == null) {
      return;
    }
    StagedGroup group = ref.group();
    int index = ref.index();
    if (ForwardErrors.isPermanent(
        code, topology.get(), group.targetColor[index], group.targetShard[index])) {
      fail(group, index, code, message);
      transport.flush();
    } else if (group.forwardAttempts[index] <= 1) {
      LOG.warn(
          "replica {}: forwarding member {} of group {} failed ({}: {}); retrying",
          nodeId,
          index,
          group.describe(),
          code,
          message);
    } else {
      LOG.debug(
          "replica {}: forwarding member {} of group {} failed again ({}: {})",
          nodeId,
          index,
          group.describe(),
          code,
          message);
    }
  }

  private void fail(StagedGroup group, int index, ErrorCode code, String message) {
    if (group.sns[index] < 0) {
      return;
    }
    LOG.error(
        "replica {}: member {} of atomic group {} (color id {}, shard {}) cannot be forwarded,"
            + " giving up on it: {}: {}",
        nodeId,
        index,
        group.describe(),
        group.targetColor[index],
        group.targetShard[index],
        code,
        message);
    io.micrometer.core.instrument.Counter.builder(AtomicAppends.FORWARD_FAILURES_METRIC)
        .tag("node", Integer.toString(nodeId))
        .tag("code", code.name())
        .description("atomic members whose forward failed for good, by error code")
        .register(registry)
        .increment();
    group.sns[index] = -code.code();
    resolved(group, index);
  }

  private void resolved(StagedGroup group, int index) {
    forwarding.remove(new TokenKey(group.tokenSession[index], group.tokenSequence[index]));
    forwardingByRequest.remove(group.forwardRequestId[index]);
    group.forwarded++;
    if (group.forwarded == group.memberCount) {
      unfinished.remove(group);
      onForwarded.accept(group);
    }
  }
}
