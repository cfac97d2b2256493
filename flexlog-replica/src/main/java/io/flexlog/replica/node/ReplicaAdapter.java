package io.flexlog.replica.node;

import io.flexlog.core.protocol.AdminRelay;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.WelcomeDescriptor;
import io.flexlog.replica.replication.Connection;
import io.flexlog.replica.replication.ReplicationEngine;
import io.netty.buffer.ByteBuf;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The replica node's adapter: every frame that reaches the node, from a client, a sequencer link or
 * a peer connection, is dispatched here by its type to the {@link ReplicationEngine}'s {@code
 * onXxx} call (or to the atomic component, for peer frames that are not token sync replies). The
 * Netty handlers ({@link ReplicaServerHandler}, {@link SequencerLink}) only wrap channels and own
 * the frames; this class holds the routing.
 *
 * <p>The deterministic simulation can route its in-memory frames through it too. Threading: the
 * engine's event loop. The caller keeps ownership of each frame.
 */
public final class ReplicaAdapter {
  private final ReplicationEngine engine;
  private final Consumer<ByteBuf> atomicPeerFrames;
  private final Executor loop;
  private volatile AdminRelay admin = AdminRelay.NONE;

  /**
   * A replica that refuses admin requests until {@link #adminRelay} is given; their answers are
   * written on the calling thread.
   *
   * @param atomicPeerFrames takes the peer frames that belong to atomic appends
   */
  public ReplicaAdapter(ReplicationEngine engine, Consumer<ByteBuf> atomicPeerFrames) {
    this(engine, atomicPeerFrames, Runnable::run);
  }

  /**
   * @param loop the engine's event loop, where relayed admin answers are written
   */
  public ReplicaAdapter(
      ReplicationEngine engine, Consumer<ByteBuf> atomicPeerFrames, Executor loop) {
    this.engine = engine;
    this.atomicPeerFrames = atomicPeerFrames;
    this.loop = loop;
  }

  /**
   * Lets {@code relay} serve the admin requests (CREATE_COLOR, ALTER_COLOR, DESCRIBE_COLORS,
   * DESCRIBE_CLUSTER) that clients send to this node. Any thread.
   */
  public void adminRelay(AdminRelay relay) {
    this.admin = Objects.requireNonNull(relay, "relay");
  }

  /** A frame from a client (or a peer asking TOKEN_SYNC) on an accepted connection. */
  public void onClientFrame(Connection connection, ByteBuf frame) {
    switch (FrameDescriptor.type(frame)) {
      case MessageType.APPEND -> engine.onAppend(connection, frame);
      case MessageType.APPEND_BATCH -> engine.onAppendBatch(connection, frame);
      case MessageType.READ -> engine.onRead(connection, frame);
      case MessageType.TRIM -> engine.onTrim(connection, frame);
      case MessageType.TAIL_REQUEST -> engine.onTailRequest(connection, frame);
      case MessageType.REPLICA_STATUS -> engine.onReplicaStatus(connection, frame);
      case MessageType.METADATA_REQUEST -> engine.onMetadataRequest(connection, frame);
      case MessageType.SUBSCRIBE -> engine.onSubscribe(connection, frame);
      case MessageType.SUBSCRIBE_CREDIT -> engine.onSubscribeCredit(connection, frame);
      case MessageType.UNSUBSCRIBE -> engine.onUnsubscribe(connection, frame);
      case MessageType.TOKEN_SYNC -> engine.onTokenSync(connection, frame);
      case MessageType.SYNC_FETCH -> engine.onSyncFetch(connection, frame);
      case MessageType.STAGE, MessageType.COMMIT_GROUP -> engine.onAtomicFrame(connection, frame);
      case MessageType.CREATE_COLOR,
              MessageType.ALTER_COLOR,
              MessageType.DESCRIBE_COLORS,
              MessageType.DESCRIBE_CLUSTER ->
          AdminRelay.serve(
              admin,
              frame,
              loop,
              answer -> {
                connection.write(answer);
                connection.flush();
              });
      default -> engine.onUnsupportedFrame(connection, frame);
    }
  }

  public void onClientWritable(Connection connection) {
    engine.onConnectionWritable(connection);
  }

  public void onClientClosed(Connection connection) {
    engine.onConnectionClosed(connection);
  }

  /**
   * A frame from sequencer node {@code sequencerId}.
   *
   * @return false for a frame the link handles itself (ERROR) or does not expect
   */
  public boolean onSequencerFrame(int sequencerId, ByteBuf frame) {
    switch (FrameDescriptor.type(frame)) {
      case MessageType.ORDER_RESPONSE -> engine.onOrderResponse(sequencerId, frame);
      case MessageType.WATERMARK -> engine.onWatermark(sequencerId, frame);
      case MessageType.TOPOLOGY_MARK -> engine.onTopologyMark(sequencerId, frame);
      case MessageType.WELCOME ->
          engine.onSequencerLinkUp(sequencerId, WelcomeDescriptor.incarnation(frame));
      default -> {
        return false;
      }
    }
    return true;
  }

  public void onSequencerLinkLost(int sequencerId) {
    engine.onSequencerLinkLost(sequencerId);
  }

  /** A frame on one of this node's connections to the other replicas: an answer to it. */
  public void onPeerFrame(ByteBuf frame) {
    if (!ReplicationEngine.isTokenSyncReply(frame)) {
      atomicPeerFrames.accept(frame);
    } else if (FrameDescriptor.type(frame) == MessageType.ERROR) {
      engine.onTokenSyncError(frame);
    } else if (FrameDescriptor.type(frame) == MessageType.SYNC_ENTRIES) {
      engine.onSyncEntries(frame);
    } else {
      engine.onTokenSyncResponse(frame);
    }
  }
}
