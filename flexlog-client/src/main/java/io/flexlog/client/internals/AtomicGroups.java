package io.flexlog.client.internals;

import io.flexlog.core.error.AtomicMemberFailedException;
import io.flexlog.core.error.AtomicOutcomeUnknownException;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.GroupAbortedException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The atomic-group role: appends records to several colors, all or nothing
 * (docs/architecture.md#atomic-multi-color-append). It stages every member on every replica of a
 * shard of the broker color, then commits the group; the replicas forward each member to its color
 * with the member's own token and answer GROUP_RESULT with the SNs.
 *
 * <p>Outcomes: before any COMMIT_GROUP was sent a failure is typed and final (nothing can appear).
 * After it the group may appear, so only a definite answer ends it: GROUP_RESULT, every replica
 * aborting it ({@link GroupAbortedException}), a member failing for good ({@link
 * AtomicMemberFailedException}), or every replica having aborted or forgotten it, or the delivery
 * deadline passing ({@link AtomicOutcomeUnknownException}). Other refusals and lost answers are
 * retried with the next attempt, each request timeout.
 *
 * <p>Request ids: one for the stages, then one per broker replica for its COMMIT_GROUP, so that an
 * ERROR answering a commit names the replica it came from (see {@link RequestIds}).
 *
 * <p>Threading: {@link #appendAtomically} may be called from any thread (it validates there and
 * hands the group to the loop); everything else runs on the client's event loop.
 */
final class AtomicGroups {
  private static final Logger LOG = LoggerFactory.getLogger(AtomicGroups.class);

  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final Tokens tokens;
  private final String brokerColor;
  private final InFlight.AttemptTimer timer;
  private final long deliveryTimeoutNs;

  /** Groups by every request id they use: a committing group is listed once per replica. */
  private final LongObjectHashMap<PendingGroup> groups = new LongObjectHashMap<>();

  private final Consumer<PendingGroup> resend = this::send;

  private long nextId = RequestIds.ATOMIC_BASE;
  private int roundRobin;

  AtomicGroups(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      Tokens tokens,
      String brokerColor,
      long requestTimeoutNs,
      long deliveryTimeoutNs) {
    this.metadata = metadata;
    this.outbound = outbound;
    this.loop = loop;
    this.clock = clock;
    this.tokens = tokens;
    this.brokerColor = brokerColor;
    this.timer = new InFlight.AttemptTimer(clock, requestTimeoutNs);
    this.deliveryTimeoutNs = deliveryTimeoutNs;
  }

  /**
   * @return SNs per color, in the order of that color's list
   */
  CompletableFuture<Map<String, long[]>> appendAtomically(Map<String, List<byte[]>> records) {
    CompletableFuture<Map<String, long[]>> future = new CompletableFuture<>();
    try {
      PendingGroup group =
          PendingGroup.validated(
              records, metadata, brokerColor, tokens, clock.nanoTime() + deliveryTimeoutNs, future);
      loop.execute(() -> start(group));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  private void start(PendingGroup group) {
    if (group.future.isDone()) {
      return;
    }
    int colors = group.colorNames.size();
    group.colorIds = new int[colors];
    for (int c = 0; c < colors; c++) {
      Optional<Color> color = metadata.topology().color(group.colorNames.get(c));
      if (color.isEmpty()) {
        fail(group, metadata.unknownColor(group.colorNames.get(c)));
        return;
      }
      group.colorIds[c] = color.get().id();
    }
    Optional<Color> broker = metadata.topology().color(brokerColor);
    List<Shard> brokers = broker.map(c -> metadata.shardsOf(c.id())).orElse(List.of());
    if (brokers.isEmpty()) {
      fail(
          group,
          new FlexLogException("broker color '" + brokerColor + "' has no shard to stage on"));
      return;
    }
    group.broker = brokers.get(Math.floorMod(roundRobin++, brokers.size()));
    if (!pickTargets(group)) {
      return;
    }
    group.requestId = nextId;
    nextId += 1 + group.broker.replicaNodeIds().size();
    groups.put(group.requestId, group);
    send(group);
  }

  /** Gives each member a token and a target shard; false (and the group failed) if it has none. */
  private boolean pickTargets(PendingGroup group) {
    int count = group.memberCount();
    group.targetShard = new int[count];
    group.sequences = new long[count];
    group.stagedMask = new int[count];
    for (int i = 0; i < count; i++) {
      group.sequences[i] = tokens.next();
      List<Shard> shards = metadata.shardsOf(group.colorIds[group.memberColor[i]]);
      if (shards.isEmpty()) {
        fail(
            group,
            new FlexLogException(
                "color '" + group.colorNames.get(group.memberColor[i]) + "' has no shard"));
        return false;
      }
      // Chosen from the token, and carried in STAGE, so every replica of the broker shard
      // forwards the member to the same shard.
      long mixed = (group.sequences[i] ^ tokens.session()) * 0x9E3779B97F4A7C15L;
      group.targetShard[i] = shards.get(Math.floorMod(Long.hashCode(mixed), shards.size())).id();
    }
    return true;
  }

  /** Sends what the group's phase still needs: unacknowledged stages, or the commit. */
  private void send(PendingGroup group) {
    group.startAttempt(timer);
    List<Integer> replicas = group.broker.replicaNodeIds();
    for (int r = 0; r < replicas.size(); r++) {
      int node = replicas.get(r);
      if (group.committing) {
        group.unwrittenFrames++;
        outbound.send(
            node,
            CommitGroupDescriptor.encode(
                outbound.alloc(),
                group.commitRequestId(r),
                group.groupHigh,
                group.groupLow,
                group.broker.id(),
                group.memberCount()),
            group);
      } else {
        for (int i = 0; i < group.memberCount(); i++) {
          if ((group.stagedMask[i] & (1 << r)) == 0) {
            sendStage(node, group, i);
          }
        }
      }
    }
  }

  private void sendStage(int node, PendingGroup group, int index) {
    ByteBuf payload = group.payloads[index];
    group.unwrittenFrames++;
    outbound.send(
        node,
        StageDescriptor.encodeHeader(
            outbound.alloc(),
            group.requestId,
            group.groupHigh,
            group.groupLow,
            index,
            group.memberCount(),
            group.broker.id(),
            group.colorIds[group.memberColor[index]],
            group.targetShard[index],
            tokens.session(),
            group.sequences[index],
            payload.readableBytes()),
        payload.retainedDuplicate(),
        group);
  }

  /** STAGE_ACK: one replica staged one member; once all are staged everywhere, commit. */
  void onStageAck(ByteBuf frame) {
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
        send(group);
      }
    }
  }

  /** GROUP_RESULT: the group appeared; its SNs, member by member. */
  void onGroupResult(ByteBuf frame) {
    PendingGroup group = groups.get(FrameDescriptor.requestId(frame));
    if (group == null
        || GroupResultDescriptor.groupLow(frame) != group.groupLow
        || GroupResultDescriptor.groupHigh(frame) != group.groupHigh) {
      return;
    }
    if (GroupResultDescriptor.count(frame) != group.memberCount()) {
      fail(
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
    Map<String, long[]> result = snsByColor(group, frame);
    if (remove(group)) {
      group.release();
    }
    group.future.complete(result);
  }

  private static Map<String, long[]> snsByColor(PendingGroup group, ByteBuf frame) {
    int colors = group.colorNames.size();
    int[] perColor = new int[colors];
    for (int c : group.memberColor) {
      perColor[c]++;
    }
    Map<String, long[]> result = new LinkedHashMap<>();
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
    return result;
  }

  /** An ERROR carrying one of the groups' request ids. */
  void onError(long requestId, ErrorCode code, String message) {
    PendingGroup group = groups.get(requestId);
    if (group != null && group.committing) {
      onCommitError(group, requestId, code, message);
    } else if (group != null && code != ErrorCode.NOT_READY) {
      fail(group, FlexLogException.fromWire(code, message)); // nothing committed yet
    }
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
        fail(group, new AtomicMemberFailedException(message));
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
      fail(
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
      fail(
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

  /** Re-sends attempts past their request timeout; ends groups past their delivery deadline. */
  void onTick(long nowNs) {
    if (groups.isEmpty()) {
      return;
    }
    List<PendingGroup> expired = InFlight.resendOrExpire(distinctGroups(), nowNs, resend);
    if (expired != null) {
      for (PendingGroup group : expired) {
        fail(group, timeout(group, deliveryTimeoutNs / 1_000_000 + " ms"));
      }
    }
  }

  /** Ends every group in flight (the client closes): a committed one's outcome is unknown. */
  void failAll(FlexLogException error) {
    for (PendingGroup group : distinctGroups()) {
      fail(group, group.committing ? timeout(group, "the client's close") : error);
    }
  }

  int inFlight() {
    return distinctGroups().size();
  }

  private List<PendingGroup> distinctGroups() {
    return groups.values().stream().distinct().toList();
  }

  /**
   * The error for a group that did not finish: before its commit a timeout (nothing can appear),
   * after it {@link AtomicOutcomeUnknownException}.
   */
  private static FlexLogException timeout(PendingGroup group, String within) {
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

  /** Ends a group with an error (see the class comment for which errors fit which phase). */
  private void fail(PendingGroup group, FlexLogException error) {
    if (remove(group) || !group.future.isDone()) {
      group.release();
    }
    group.future.completeExceptionally(error);
  }

  /** Forgets the group's request ids; false if it was already forgotten. */
  private boolean remove(PendingGroup group) {
    boolean removed = groups.remove(group.requestId) != null;
    if (group.broker != null) {
      for (int r = 0; r < group.broker.replicaNodeIds().size(); r++) {
        groups.remove(group.commitRequestId(r));
      }
    }
    return removed;
  }
}
