package io.flexlog.server.control.quorum;

import io.flexlog.core.model.Topology;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import io.flexlog.server.control.quorum.MetadataCommand.Entry;
import io.flexlog.server.control.quorum.MetadataCommand.Kind;
import io.flexlog.server.control.quorum.MetadataCommand.Outcome;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster metadata as the replicated state machine of the metadata quorum: the committed
 * topology and the role leases, changed only by the conditional entries of {@link MetadataCommand}
 * and {@link RoleCommand}, and the roles' join marks, merged by {@link JoinMarkCommand} entries.
 * Every node of the quorum applies the same entries in the same order and so holds the same
 * topology.
 *
 * <p>Snapshots: the topology, the leases and the join marks ({@link MetadataSnapshot}), one file
 * per snapshot named by Ratis' {@link SimpleStateMachineStorage}, with its MD5 beside it so that a
 * leader can install it on a follower that fell behind the purged log.
 *
 * <p>Threading: Ratis applies entries one at a time on the peer's state-machine updater thread,
 * which alone writes {@link #topology}, {@link #leases} and {@link #joinMarks}; queries and
 * snapshots read the volatile field. {@code onCommitted} runs on that thread too and must hand work
 * to its own thread.
 */
final class MetadataStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final Consumer<Topology> onCommitted;
  private volatile Topology topology;
  private volatile Map<Integer, RoleLease> leases = Map.of();
  private volatile Map<Integer, List<Mark>> joinMarks = Map.of();

  /**
   * @param onCommitted told of every newly committed topology, in order (also the one loaded from a
   *     snapshot)
   */
  MetadataStateMachine(Consumer<Topology> onCommitted) {
    this.onCommitted = onCommitted;
  }

  /** The committed topology this node has applied, if any. */
  Optional<Topology> topology() {
    return Optional.ofNullable(topology);
  }

  /** The role leases this node has applied, by color id (an immutable copy). */
  Map<Integer, RoleLease> leases() {
    return leases;
  }

  /** The join marks this node has applied, by color id (an immutable copy). */
  Map<Integer, List<Mark>> joinMarks() {
    return joinMarks;
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  /** One line per leader change this node sees: when a failover waits, the logs say on what. */
  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    LOG.info(
        "metadata quorum member {}: the leader is now {}",
        groupMemberId.getPeerId(),
        newLeaderId == null ? "unknown" : newLeaderId);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    getLifeCycle().startAndTransition(this::loadLatestSnapshot);
  }

  /**
   * Ratis pauses the state machine before it installs a snapshot from the leader and checks that it
   * is paused before {@link #reinitialize}; the default does nothing, which failed that check and
   * closed this member's Raft server.
   */
  @Override
  public void pause() {
    getLifeCycle().transition(LifeCycle.State.PAUSING);
    getLifeCycle().transition(LifeCycle.State.PAUSED);
  }

  /**
   * Called by Ratis, after {@link #pause}, once it installed a snapshot from the leader (this
   * member was too far behind for the leader's log): the snapshot on disk is newer than the one
   * cached at start, so the storage directory is scanned again and the state machine resumes from
   * it.
   */
  @Override
  public void reinitialize() throws IOException {
    storage.loadLatestSnapshot();
    loadLatestSnapshot();
    getLifeCycle().transition(LifeCycle.State.STARTING);
    getLifeCycle().transition(LifeCycle.State.RUNNING);
  }

  private void loadLatestSnapshot() throws IOException {
    SingleFileSnapshotInfo snapshot = storage.getLatestSnapshot();
    if (snapshot == null) {
      return;
    }
    File file = snapshot.getFile().getPath().toFile();
    MetadataSnapshot.State state = MetadataSnapshot.read(file.toPath());
    Topology loaded = state.topology();
    topology = loaded;
    leases = state.leases();
    joinMarks = state.joinMarks();
    updateLastAppliedTermIndex(snapshot.getTermIndex());
    LOG.info("metadata snapshot {} loaded: topology version {}", file, loaded.version());
    onCommitted.accept(loaded);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    ByteString data = entry.getStateMachineLogEntry().getLogData();
    byte[] reply;
    try {
      ByteBuffer bytes = data.asReadOnlyByteBuffer();
      MetadataCommand.Kind kind = MetadataCommand.kind(bytes);
      if (kind == Kind.SAVE_MARKS) {
        reply = saveMarks(JoinMarkCommand.decode(bytes));
      } else {
        reply =
            kind.isRole()
                ? RoleApply.apply(this, RoleCommand.decode(kind, bytes))
                : apply(MetadataCommand.decode(bytes));
      }
    } catch (RuntimeException e) {
      // Every node refuses the same entry the same way, so their states stay equal.
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.failedFuture(e);
    }
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
  }

  private byte[] apply(Entry entry) {
    Topology current = topology;
    boolean holds =
        switch (entry.kind()) {
          case BOOTSTRAP -> current == null;
          case REPLACE ->
              current != null
                  && current.version() == entry.expectedVersion()
                  && entry.topology().version() > current.version();
          case RENEW_ROLE, TAKE_ROLE, SAVE_MARKS ->
              throw new IllegalArgumentException(
                  entry.kind() + " entry decoded as a topology entry");
        };
    if (!holds && entry.kind() == Kind.REPLACE && entry.topology().equals(current)) {
      // The same change again: a proposal retried by a new client after its first attempt was
      // committed (the metadata client retries across client instances; docs/architecture.md,
      // "Metadata quorum"). It is what is committed, so it succeeded.
      return MetadataCommand.encodeReply(Outcome.APPLIED, current);
    }
    if (!holds) {
      return MetadataCommand.encodeReply(Outcome.CONFLICT, current);
    }
    commitTopology(entry.topology());
    return MetadataCommand.encodeReply(Outcome.APPLIED, entry.topology());
  }

  /** Makes {@code next} the state's topology and tells the listener; updater thread only. */
  void commitTopology(Topology next) {
    topology = next;
    onCommitted.accept(next);
  }

  /** Merges a role's join marks into those kept (docs/architecture.md#join-marks). */
  private byte[] saveMarks(JoinMarkCommand.Entry entry) {
    Map<Integer, List<Mark>> next = new HashMap<>(joinMarks);
    next.put(
        entry.colorId(),
        JoinMarkStore.merge(next.getOrDefault(entry.colorId(), List.of()), entry.marks()));
    joinMarks = Map.copyOf(next);
    return new byte[] {0};
  }

  /** Replaces one lease; updater thread only. */
  void putLease(RoleLease lease) {
    Map<Integer, RoleLease> next = new HashMap<>(leases);
    next.put(lease.colorId(), lease);
    leases = Map.copyOf(next);
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    return CompletableFuture.completedFuture(
        Message.valueOf(ByteString.copyFrom(MetadataCommand.encodeTopology(topology))));
  }

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex last = getLastAppliedTermIndex();
    Topology current = topology;
    if (current == null || last == null || last.getIndex() < 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    MetadataSnapshot.write(file.toPath(), current, leases, joinMarks);
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
    storage.updateLatestSnapshot(
        new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
    storage.cleanupOldSnapshots(SNAPSHOTS_RETAINED);
    return last.getIndex();
  }

  /** Older snapshot files are deleted; the log before the newest is purged by Ratis. */
  private static final SnapshotRetentionPolicy SNAPSHOTS_RETAINED =
      new SnapshotRetentionPolicy() {
        @Override
        public int getNumSnapshotsRetained() {
          return 2;
        }
      };
}
