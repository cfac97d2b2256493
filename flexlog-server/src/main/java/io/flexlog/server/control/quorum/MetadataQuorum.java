package io.flexlog.server.control.quorum;

import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Topology;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.flexlog.server.control.AdminRoute;
import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.MetadataLog;
import io.flexlog.server.control.quorum.MetadataCommand.Kind;
import io.flexlog.server.control.quorum.MetadataCommand.Outcome;
import io.flexlog.server.control.quorum.MetadataCommand.Reply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's member of the metadata quorum: an Apache Ratis server in the group of the quorum's
 * nodes, running the {@link MetadataStateMachine}, and a Ratis client through which this node
 * proposes changes (Ratis sends them to the leader wherever it is). Ratis elects the leader,
 * replicates and commits; FlexLog only defines the state machine (docs/architecture.md, "Metadata
 * quorum").
 *
 * <p>Every call waits at most the configured request timeout and then fails with {@link
 * MetadataUnavailableException}, never hangs: without a majority there is no leader to answer.
 *
 * <p>Threading: thread-safe. Committed topologies reach the listener on one dispatcher thread, in
 * commit order, never on Ratis' own threads.
 */
public final class MetadataQuorum implements MetadataLog, AdminRoute, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataQuorum.class);

  /** A request that failed is tried again after this pause, until the request timeout. */
  private static final long RETRY_SLEEP_MS = 50;

  private final QuorumConfig config;
  private final int selfId;
  private final RaftServer server;
  private final RaftGroup group;

  /**
   * Replaced after every failed attempt, by one that starts at the leader this node's Ratis server
   * knows: a Ratis client keeps failing with AlreadyClosedException once its connection to a peer
   * that restarted was closed, and keeps asking a dead leader until its retries run out.
   */
  private volatile RaftClient client;

  private final MetadataStateMachine stateMachine;
  private final ExecutorService dispatcher;

  /**
   * Closes replaced clients. Closing one whose peer the network cut off waits for Ratis' graceful
   * and then forced channel shutdown (up to 3 + 2 s) and must not hold up the next attempt: inside
   * the request it delayed a backup's take of a role by 3 s (docs/architecture.md#metadata-quorum).
   */
  private final ExecutorService closer;

  private MetadataQuorum(
      QuorumConfig config,
      int selfId,
      RaftServer server,
      RaftGroup group,
      MetadataStateMachine stateMachine,
      ExecutorService dispatcher) {
    this.config = config;
    this.selfId = selfId;
    this.server = server;
    this.group = group;
    this.client = QuorumRatis.client(group, null);
    this.stateMachine = stateMachine;
    this.dispatcher = dispatcher;
    this.closer =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-metadata-client-closer-" + selfId);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts this node's Ratis server on its raft port, recovering the log and snapshots under {@code
   * storageDir}; returns at once (the group elects its leader on its own).
   *
   * @param onCommitted told of every committed topology, in order, on the dispatcher thread
   * @throws IOException when the port cannot be bound or the storage is unusable
   * @throws IllegalArgumentException when {@code selfId} is not a quorum node
   */
  public static MetadataQuorum start(
      QuorumConfig config, int selfId, Path storageDir, Consumer<Topology> onCommitted)
      throws IOException {
    QuorumConfig.Peer self =
        config
            .peer(selfId)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "node " + selfId + " is not in the metadata quorum " + config.nodeIds()));
    ExecutorService dispatcher =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-metadata-dispatch-" + selfId);
              t.setDaemon(true);
              return t;
            });
    MetadataStateMachine stateMachine =
        new MetadataStateMachine(
            topology -> dispatcher.execute(() -> deliver(onCommitted, topology)));
    RaftGroup group = QuorumRatis.group(config);
    Files.createDirectories(storageDir);
    RaftServer server =
        RaftServer.newBuilder()
            .setServerId(QuorumRatis.peerId(selfId))
            .setGroup(group)
            .setStateMachine(stateMachine)
            .setProperties(QuorumRatis.serverProperties(config, self, storageDir))
            .setOption(RaftStorage.StartupOption.RECOVER)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      server.close();
      dispatcher.shutdownNow();
      throw new IOException(
          "metadata quorum node "
              + selfId
              + " cannot start on "
              + self.raftAddress()
              + ": "
              + e.getMessage(),
          e);
    }
    LOG.info("metadata quorum node {} listening on {}", selfId, self.raftAddress());
    return new MetadataQuorum(config, selfId, server, group, stateMachine, dispatcher);
  }

  private static void deliver(Consumer<Topology> onCommitted, Topology topology) {
    try {
      onCommitted.accept(topology);
    } catch (RuntimeException e) {
      LOG.error("applying committed topology version {} failed", topology.version(), e);
    }
  }

  /** This node's id. */
  public int selfId() {
    return selfId;
  }

  /** The quorum's configuration. */
  public QuorumConfig config() {
    return config;
  }

  /** Where the quorum's leadership sits, and moving it (see {@link QuorumLeadership}). */
  QuorumLeadership leadership() {
    return new QuorumLeadership(selfId, server, group);
  }

  /**
   * Seeds the metadata with {@code configured} if the quorum holds none yet (the first node to
   * start wins); otherwise changes nothing.
   *
   * @return the committed topology afterwards
   * @throws MetadataUnavailableException when the quorum has no leader within the timeout
   */
  public Topology bootstrap(Topology configured) {
    Reply reply = propose(Kind.BOOTSTRAP, 0, configured);
    return reply.committed();
  }

  @Override
  public Commit commit(Topology expected, Topology next) {
    Reply reply = propose(Kind.REPLACE, expected.version(), next);
    return new Commit(reply.outcome() == Outcome.APPLIED, reply.committed());
  }

  @Override
  public Topology read(Topology cached) {
    RaftClientReply reply = call(c -> c.async().sendReadOnly(Message.EMPTY), "read", false);
    Topology topology =
        MetadataCommand.decodeTopology(reply.getMessage().getContent().asReadOnlyByteBuffer());
    if (topology == null) {
      throw new MetadataUnavailableException(
          "the metadata quorum " + config.nodeIds() + " has not been bootstrapped yet");
    }
    return topology;
  }

  private Reply propose(Kind kind, long expectedVersion, Topology topology) {
    Message message =
        Message.valueOf(
            ByteString.copyFrom(MetadataCommand.encode(kind, expectedVersion, topology)));
    RaftClientReply reply = call(c -> c.async().send(message), "change", true);
    return MetadataCommand.decodeReply(reply.getMessage().getContent().asReadOnlyByteBuffer());
  }

  /**
   * Sends a request, one attempt at a time, until one succeeds or the request timeout has passed.
   * Every command is safe to apply twice (a retried attempt may have been committed already: role
   * commands are conditional or only count renewals, and a topology replacement that is already
   * committed answers APPLIED), so a new client may send it again.
   */
  private RaftClientReply call(
      Function<RaftClient, CompletableFuture<RaftClientReply>> send, String what, boolean write) {
    long deadline = System.nanoTime() + config.requestTimeout().toNanos();
    Throwable last = null;
    while (true) {
      RaftClient attempt = client;
      CompletableFuture<RaftClientReply> future = send.apply(attempt);
      try {
        RaftClientReply reply =
            future.get(QuorumRatis.ATTEMPT_TIMEOUT_MS + 100, TimeUnit.MILLISECONDS);
        if (reply.isSuccess()) {
          return reply;
        }
        last = reply.getException();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        future.cancel(true);
        throw unavailable(what, write, e);
      } catch (ExecutionException e) {
        last = e.getCause();
      } catch (TimeoutException e) {
        future.cancel(true);
        last = e;
      }
      renewClient(attempt);
      if (System.nanoTime() - deadline > 0) {
        throw unavailable(what, write, last);
      }
      try {
        Thread.sleep(RETRY_SLEEP_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw unavailable(what, write, e);
      }
    }
  }

  /** Replaces {@code failed} (if no other thread did) by a client that starts at the leader. */
  private synchronized void renewClient(RaftClient failed) {
    if (client != failed) {
      return;
    }
    RaftPeerId leader = null;
    try {
      leader = server.getDivision(QuorumRatis.GROUP_ID).getInfo().getLeaderId();
    } catch (IOException e) {
      LOG.debug("no leader known to metadata quorum node {}: {}", selfId, e.toString());
    }
    client = QuorumRatis.client(group, leader);
    closer.execute(
        () -> {
          try {
            failed.close();
          } catch (IOException e) {
            LOG.debug("closing a failed metadata client", e);
          }
        });
  }

  private MetadataUnavailableException unavailable(String what, boolean write, Throwable cause) {
    return new MetadataUnavailableException(
        "metadata unavailable: the metadata quorum (nodes "
            + config.nodeIds()
            + ") had no leader that a majority follows within "
            + config.requestTimeout().toMillis()
            + " ms, asked by node "
            + selfId
            + " for a "
            + what
            + (write ? " (it may still be committed once a majority is back)" : "")
            + (cause == null ? "" : ": " + cause.getClass().getSimpleName()),
        cause);
  }

  /**
   * Renews node {@code nodeId}'s lease of a role in {@code epoch}.
   *
   * @throws MetadataUnavailableException when the quorum does not answer within the timeout
   */
  public RoleCommand.Reply renewRole(int colorId, int nodeId, int epoch) {
    return proposeRole(RoleCommand.encode(Kind.RENEW_ROLE, colorId, nodeId, epoch, 0, 0));
  }

  /**
   * Takes a role for node {@code nodeId} if its lease is still {@code seen} (null: none yet), in an
   * epoch of at least {@code minEpoch}.
   *
   * @throws MetadataUnavailableException when the quorum does not answer within the timeout
   */
  public RoleCommand.Reply takeRole(int colorId, int nodeId, RoleLease seen, int minEpoch) {
    return proposeRole(
        RoleCommand.encode(
            Kind.TAKE_ROLE,
            colorId,
            nodeId,
            seen == null ? -1 : seen.epoch(),
            seen == null ? 0 : seen.renewals(),
            minEpoch));
  }

  private RoleCommand.Reply proposeRole(byte[] entry) {
    Message message = Message.valueOf(ByteString.copyFrom(entry));
    RaftClientReply reply = call(c -> c.async().send(message), "role change", true);
    return RoleCommand.decodeReply(reply.getMessage().getContent().asReadOnlyByteBuffer());
  }

  /**
   * Merges {@code marks} into the join marks the quorum keeps for {@code colorId}
   * (docs/architecture.md#join-marks); returns once committed.
   *
   * @throws MetadataUnavailableException when the quorum does not answer within the timeout
   */
  public void saveJoinMarks(int colorId, java.util.List<JoinMarkStore.Mark> marks) {
    Message message = Message.valueOf(ByteString.copyFrom(JoinMarkCommand.encode(colorId, marks)));
    call(c -> c.async().send(message), "join mark", true);
  }

  /** The join marks this node has applied (no quorum round trip), by color id. */
  public java.util.Map<Integer, java.util.List<JoinMarkStore.Mark>> localJoinMarks() {
    return stateMachine.joinMarks();
  }

  /** The role leases this node has applied (no quorum round trip), by color id. */
  public java.util.Map<Integer, RoleLease> localLeases() {
    return stateMachine.leases();
  }

  /** The committed topology this node has applied, if any (no quorum round trip). */
  public Optional<Topology> localTopology() {
    return stateMachine.topology();
  }

  /** Whether this node is the quorum's leader now. */
  public boolean isLeader() {
    try {
      return server.getDivision(QuorumRatis.GROUP_ID).getInfo().isLeader();
    } catch (IOException e) {
      return false;
    }
  }

  /** The quorum node this node believes leads, if it knows one. */
  public Optional<QuorumConfig.Peer> leader() {
    RaftPeerId leader;
    try {
      leader = server.getDivision(QuorumRatis.GROUP_ID).getInfo().getLeaderId();
    } catch (IOException e) {
      return Optional.empty();
    }
    if (leader == null) {
      return Optional.empty();
    }
    return config.peers().stream()
        .filter(p -> QuorumRatis.peerId(p.nodeId()).equals(leader))
        .findFirst();
  }

  @Override
  public Optional<HostPort> otherLeaderNow() {
    return leader().filter(p -> p.nodeId() != selfId).map(QuorumConfig.Peer::admin);
  }

  /** {@inheritDoc} Whether this node leads the quorum now (no wait). */
  @Override
  public boolean servesStreamsNow() {
    return isLeader();
  }

  /**
   * {@inheritDoc}
   *
   * <p>While an election is under way this waits, up to the request timeout, until a leader is
   * known.
   */
  @Override
  public Optional<HostPort> leaderAdmin() {
    long deadline = System.nanoTime() + config.requestTimeout().toNanos();
    while (true) {
      if (isLeader()) {
        return Optional.empty();
      }
      Optional<QuorumConfig.Peer> leader = leader();
      if (leader.isPresent()) {
        return Optional.of(leader.get().admin());
      }
      if (System.nanoTime() > deadline) {
        throw new MetadataUnavailableException(
            "metadata unavailable: node "
                + selfId
                + " knows no leader of the metadata quorum (nodes "
                + config.nodeIds()
                + ") after "
                + config.requestTimeout().toMillis()
                + " ms; a majority of them must be up");
      }
      try {
        Thread.sleep(RETRY_SLEEP_MS / 5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MetadataUnavailableException("interrupted while waiting for a metadata leader");
      }
    }
  }

  /** Stops this node's Ratis server; the others elect a leader among themselves. */
  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException e) {
      LOG.debug("closing the metadata client: {}", e.toString());
    }
    try {
      server.close();
    } catch (IOException e) {
      LOG.warn("closing metadata quorum node {}: {}", selfId, e.toString());
    }
    dispatcher.shutdownNow();
    closer.shutdown();
  }
}
