package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.TokenSyncDescriptor;
import io.flexlog.core.protocol.TokenSyncResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token sync of docs/architecture.md#token-sync between the two replicas of one shard, driven
 * frame by frame: a sequencer process that dies while broadcasting an ORDER_RESPONSE must not make
 * the shard commit one record at two SNs once a new process (a larger incarnation) takes over.
 */
class TokenSyncTest {
  private static final int SEQUENCER = 0;
  private static final int SHARD = 0;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final long OLD = Sn.of(1, 0);

  @TempDir Path dir;

  /** One event loop for both replicas, on a frozen clock that only the test moves. */
  private final EmbeddedChannel loop = new EmbeddedChannel();

  /** The replicas' clock ({@link ReplicaRuntime#nanoTime}), moved by the test. */
  private long nanos = TimeUnit.SECONDS.toNanos(1);

  /** The topology the replicas start with. */
  private Topology topology = PeeredReplica.TOPOLOGY;

  private Replica one;
  private Replica two;

  /** A replica engine with its client channel, captured order requests and peer frames. */
  private final class Replica {
    final int nodeId;
    final LogStorage storage;
    final ReplicationEngine engine;
    final EmbeddedChannel client = new EmbeddedChannel();

    /** The connection a peer's TOKEN_SYNC arrives on (this replica answers on it). */
    final EmbeddedChannel fromPeer = new EmbeddedChannel();

    final List<long[]> orderRequests = new ArrayList<>();
    final List<ByteBuf> toPeers = new ArrayList<>();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    Replica(int nodeId) {
      this.nodeId = nodeId;
      storage =
          StorageEngines.open(
              StorageEngines.MAPPED,
              dir.resolve("replica-" + nodeId),
              4 << 20,
              1 << 20,
              DurabilityMode.PROCESS);
      SequencerGateway sequencer =
          new SequencerGateway() {
            @Override
            public void send(OrderRequestBatch batch, int replicaNodeId) {
              for (int i = 0; i < batch.count(); i++) {
                orderRequests.add(new long[] {batch.session(i), batch.sequence(i)});
              }
            }

            @Override
            public void flush() {}
          };
      engine =
          new ReplicationEngine(
              nodeId,
              topology,
              storage,
              new ReplicaLimits(1 << 20, Duration.ofSeconds(1), 1000),
              sequencer,
              new EventExecutorRuntime(loop.eventLoop(), () -> nanos),
              meters);
      engine.attachPeers(
          new PeerGateway() {
            @Override
            public void send(int peer, ByteBuf frame) {
              assertThat(peer).isNotEqualTo(nodeId);
              toPeers.add(frame);
            }

            @Override
            public void flush() {}
          });
      engine.recover();
    }

    void append(long session, long sequence) {
      byte[] bytes = ("record " + session + "/" + sequence).getBytes(StandardCharsets.UTF_8);
      PeeredReplica.append(engine, client, session, sequence, bytes);
      loop.runPendingTasks();
    }

    void orderResponse(long session, long sequence, long sn) {
      PeeredReplica.orderResponse(engine, 0, session, sequence, sn);
      loop.runPendingTasks();
    }

    void watermark(long sn) {
      ByteBuf frame = WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, GLOBAL, sn);
      try {
        engine.onWatermark(SEQUENCER, frame);
      } finally {
        frame.release();
      }
      loop.runPendingTasks();
    }

    void welcomedBy(int incarnation) {
      engine.onSequencerLinkUp(SEQUENCER, incarnation);
      loop.runPendingTasks();
    }

    void lostSequencer() {
      engine.onSequencerLinkLost(SEQUENCER);
      loop.runPendingTasks();
    }

    /** The SNs this replica acknowledged to its client so far, in order. */
    List<Long> ackedSns() {
      List<Long> sns = new ArrayList<>();
      client.flushOutbound();
      for (ByteBuf frame = client.readOutbound(); frame != null; frame = client.readOutbound()) {
        if (FrameDescriptor.type(frame) == MessageType.APPEND_ACK) {
          sns.add(AppendAckDescriptor.sn(frame));
        }
        frame.release();
      }
      return sns;
    }

    /** Delivers this replica's TOKEN_SYNC requests to {@code peer}; returns how many. */
    int sendSyncTo(Replica peer) {
      int sent = toPeers.size();
      for (ByteBuf frame : toPeers) {
        assertThat(FrameDescriptor.type(frame)).isEqualTo(MessageType.TOKEN_SYNC);
        assertThat(TokenSyncDescriptor.replicaNodeId(frame)).isEqualTo(nodeId);
        try {
          peer.engine.onTokenSync(EmbeddedConnections.of(peer.fromPeer), frame);
        } finally {
          frame.release();
        }
      }
      toPeers.clear();
      loop.runPendingTasks();
      return sent;
    }

    /** Hands the answers {@code peer} wrote so far back to this replica; returns them. */
    List<List<Long>> receiveAnswersOf(Replica peer) {
      List<List<Long>> answers = new ArrayList<>();
      peer.fromPeer.flushOutbound();
      for (ByteBuf frame = peer.fromPeer.readOutbound();
          frame != null;
          frame = peer.fromPeer.readOutbound()) {
        assertThat(FrameDescriptor.type(frame)).isEqualTo(MessageType.TOKEN_SYNC_RESPONSE);
        List<Long> sns = new ArrayList<>();
        for (int i = 0; i < TokenSyncResponseDescriptor.count(frame); i++) {
          sns.add(TokenSyncResponseDescriptor.sn(frame, i));
        }
        answers.add(sns);
        try {
          engine.onTokenSyncResponse(frame);
        } finally {
          frame.release();
        }
      }
      loop.runPendingTasks();
      return answers;
    }

    /** Records stored here and still waiting for an SN. */
    double pending() {
      return meters.get("flexlog.replica.pending").gauge().value();
    }

    double abandoned() {
      return meters.get("flexlog.replica.sync.abandoned").counter().count();
    }

    void close() {
      toPeers.forEach(ByteBuf::release);
      client.finishAndReleaseAll();
      fromPeer.finishAndReleaseAll();
      storage.close();
    }
  }

  @BeforeEach
  void start() {
    loop.freezeTime();
    startReplicas();
  }

  private void startReplicas() {
    one = new Replica(1);
    two = new Replica(2);
    for (Replica replica : List.of(one, two)) {
      replica.welcomedBy(1);
      replica.watermark(OLD);
    }
  }

  /** Starts both replicas again on a topology whose color keeps records for {@code ms}. */
  private void retainFor(long ms) {
    one.close();
    two.close();
    Color global = topology.color(GLOBAL).orElseThrow();
    topology =
        new Topology(
            topology.version() + 1,
            List.copyOf(topology.nodes().values()),
            List.of(global.withRetention(Retention.KEEP_ALL.withMs(ms))),
            topology.shards());
    startReplicas();
  }

  /** Replica one crashes and starts again on the same log; no order request was answered. */
  private void restartOne() {
    one.close();
    one = new Replica(1);
  }

  @AfterEach
  void stop() {
    one.close();
    two.close();
    loop.finishAndReleaseAll();
  }

  @Test
  void shouldAdoptTheSnAPeerCommittedWhenTheSequencerDiedMidBroadcast() {
    one.append(7, 1);
    two.append(7, 1);
    two.orderResponse(7, 1, OLD + 1); // the old process reached replica two only, then died
    assertThat(two.ackedSns()).containsExactly(OLD + 1);
    one.lostSequencer();
    two.lostSequencer();
    one.orderRequests.clear();

    one.welcomedBy(2); // the restarted process has forgotten OLD + 1
    assertThat(one.orderRequests).as("no request before the peers answered").isEmpty();
    assertThat(one.sendSyncTo(two)).isEqualTo(1);
    assertThat(one.receiveAnswersOf(two)).containsExactly(List.of(OLD + 1));

    assertThat(one.ackedSns()).containsExactly(OLD + 1);
    assertThat(one.orderRequests).as("the token already has an SN in the shard").isEmpty();
  }

  @Test
  void shouldRequestATokenFromTheNewProcessOnceNoPeerHasAnSnForIt() {
    one.append(7, 1);
    two.append(7, 1);
    one.lostSequencer(); // the old process died before answering anyone
    two.lostSequencer();
    one.orderRequests.clear();

    one.welcomedBy(2);
    one.sendSyncTo(two);
    assertThat(one.receiveAnswersOf(two)).containsExactly(List.of(Sn.NONE));

    assertThat(one.orderRequests).extracting(t -> t[1]).containsExactly(1L);
    assertThat(one.ackedSns()).isEmpty();
  }

  @Test
  void shouldHoldTheAnswerWhileStillConnectedToTheOlderProcess() {
    one.append(7, 1);
    two.append(7, 1);
    one.lostSequencer();
    one.welcomedBy(2); // replica two has not noticed the old process died yet
    one.sendSyncTo(two);
    assertThat(one.receiveAnswersOf(two)).as("held: an old response may still arrive").isEmpty();

    two.orderResponse(7, 1, OLD + 1); // still buffered on two's old connection
    two.lostSequencer();
    assertThat(one.receiveAnswersOf(two)).containsExactly(List.of(OLD + 1));
    assertThat(one.ackedSns()).containsExactly(OLD + 1);
    assertThat(two.ackedSns()).containsExactly(OLD + 1);
  }

  @Test
  void shouldAnswerAtOnceWhenAlreadyConnectedToTheSameProcess() {
    one.append(7, 1);
    one.lostSequencer();
    two.lostSequencer();
    two.welcomedBy(2);
    one.welcomedBy(2);
    one.sendSyncTo(two);
    assertThat(one.receiveAnswersOf(two)).containsExactly(List.of(Sn.NONE));
    assertThat(one.orderRequests).extracting(t -> t[1]).contains(1L);
  }

  @Test
  void shouldAskAgainUntilThePeerAnswers() {
    one.append(7, 1);
    one.lostSequencer();
    two.lostSequencer();
    one.welcomedBy(2);
    assertThat(one.toPeers).hasSize(1);
    one.toPeers.forEach(ByteBuf::release); // lost on the way
    one.toPeers.clear();

    loop.advanceTimeBy(TokenSync.RETRY_MS, TimeUnit.MILLISECONDS);
    loop.runScheduledPendingTasks();
    assertThat(one.toPeers).as("the request is sent again").hasSize(1);
    one.sendSyncTo(two);
    one.receiveAnswersOf(two);

    loop.advanceTimeBy(10 * TokenSync.RETRY_MS, TimeUnit.MILLISECONDS);
    loop.runScheduledPendingTasks();
    assertThat(one.toPeers).as("answered rounds are not repeated").isEmpty();
  }

  @Test
  void shouldIgnoreAnswersToARoundThatALaterWelcomeReplaced() {
    one.append(7, 1);
    one.lostSequencer();
    two.lostSequencer();
    one.welcomedBy(2);
    List<ByteBuf> stale = new ArrayList<>(one.toPeers);
    one.toPeers.clear();
    one.lostSequencer();
    one.welcomedBy(3);
    for (ByteBuf frame : stale) {
      two.engine.onTokenSync(EmbeddedConnections.of(two.fromPeer), frame);
      frame.release();
    }
    loop.runPendingTasks();
    one.orderRequests.clear();
    one.receiveAnswersOf(two); // answers the replaced round: no effect
    assertThat(one.orderRequests).isEmpty();

    one.sendSyncTo(two);
    one.receiveAnswersOf(two);
    assertThat(one.orderRequests).extracting(t -> t[1]).containsExactly(1L);
  }

  // ------------------------------------------- records that may have outlived their retention

  @Test
  void shouldAbandonARecordNoClientSentForHalfItsRetentionWhenNoPeerHasAnSn() {
    retainFor(400);
    one.append(7, 1);
    one.lostSequencer();
    two.lostSequencer(); // two never received the record: it may have been trimmed there
    nanos += TimeUnit.MILLISECONDS.toNanos(200);
    one.orderRequests.clear();

    one.welcomedBy(2);
    one.sendSyncTo(two);
    assertThat(one.receiveAnswersOf(two)).containsExactly(List.of(Sn.NONE));

    assertThat(one.orderRequests).as("ordering it could give it a second SN").isEmpty();
    assertThat(one.pending()).isZero();
    assertThat(one.abandoned()).isEqualTo(1);
    restartOne();
    assertThat(one.pending()).as("recovery does not bring it back").isZero();
  }

  @Test
  void shouldOrderARecordAClientSentWithinHalfItsRetention() {
    retainFor(400);
    one.append(7, 1);
    one.lostSequencer();
    two.lostSequencer();
    nanos += TimeUnit.MILLISECONDS.toNanos(150);
    one.append(7, 1); // the client's retry: it has not given up yet
    nanos += TimeUnit.MILLISECONDS.toNanos(150);
    one.orderRequests.clear();

    one.welcomedBy(2);
    one.sendSyncTo(two);
    one.receiveAnswersOf(two);

    assertThat(one.orderRequests).extracting(t -> t[1]).containsExactly(1L);
    assertThat(one.abandoned()).isZero();
  }

  @Test
  void shouldKeepOrderingARecordAfterAReconnectToTheSameProcess() {
    retainFor(400);
    one.append(7, 1);
    one.lostSequencer(); // its order request may have reached the process, which lives on
    nanos += TimeUnit.MILLISECONDS.toNanos(300);
    one.orderRequests.clear();

    one.welcomedBy(1);
    one.sendSyncTo(two);
    one.receiveAnswersOf(two);

    assertThat(one.orderRequests)
        .as("the process may have ordered it already: asking again gets the same SN")
        .extracting(t -> t[1])
        .containsExactly(1L);
    assertThat(one.abandoned()).isZero();
  }

  @Test
  void shouldKeepOrderingARecoveredRecordOfARetainedColor() {
    retainFor(400);
    one.append(7, 1);
    restartOne(); // the process before the restart may have asked the same sequencer process
    nanos += TimeUnit.MILLISECONDS.toNanos(300);
    two.lostSequencer();

    one.welcomedBy(2);
    one.sendSyncTo(two);
    assertThat(one.receiveAnswersOf(two)).containsExactly(List.of(Sn.NONE));

    assertThat(one.orderRequests).extracting(t -> t[1]).containsExactly(1L);
    assertThat(one.abandoned()).isZero();
  }

  @Test
  void shouldOrderARecoveredRecordOfAColorWithoutRetention() {
    one.append(7, 1);
    restartOne();
    two.lostSequencer();

    one.welcomedBy(2);
    one.sendSyncTo(two);
    one.receiveAnswersOf(two);

    assertThat(one.orderRequests).extracting(t -> t[1]).containsExactly(1L);
    assertThat(one.abandoned()).isZero();
  }
}
