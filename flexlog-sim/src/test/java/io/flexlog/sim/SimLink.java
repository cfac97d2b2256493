package io.flexlog.sim;

import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.core.protocol.SyncEntriesDescriptor;
import io.flexlog.core.protocol.SyncFetchDescriptor;
import io.flexlog.core.protocol.TokenSyncDescriptor;
import io.flexlog.core.protocol.TokenSyncResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.protocol.WelcomeDescriptor;
import io.flexlog.replica.replication.Connection;
import io.flexlog.sequencer.ordering.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated TCP connection between two processes. Each direction is a FIFO queue of flushed
 * frames; the simulation decides when the head of a queue is delivered, independently of every
 * other queue, so deliveries interleave arbitrarily across connections but never reorder within
 * one. Closing the connection loses whatever is still queued or unflushed, in both directions, and
 * tells both processes (unless the incarnation that opened it has died meanwhile).
 *
 * <p>Each end is what its process writes to: a sequencer's {@link Outbound}, a replica's {@link
 * Connection}, a client's outbound.
 */
final class SimLink {
  /** Who owns an end: a process incarnation that receives its frames. */
  interface Endpoint {
    /** A frame arrived on {@code end}; the caller releases it afterwards. */
    void onFrame(End end, ByteBuf frame);

    /** The connection closed. */
    void onClosed(End end);

    /** False once the incarnation behind this endpoint has died. */
    boolean alive();

    String name();
  }

  final int id;
  final End initiator;
  final End acceptor;
  private final SimNetwork network;
  boolean open = true;

  SimLink(int id, SimNetwork network, Endpoint from, Endpoint to) {
    this.id = id;
    this.network = network;
    this.initiator = new End(from);
    this.acceptor = new End(to);
    initiator.peer = acceptor;
    acceptor.peer = initiator;
  }

  boolean hasQueued() {
    return !initiator.inbox.isEmpty() || !acceptor.inbox.isEmpty();
  }

  /** Loses every frame in flight. */
  void drop() {
    open = false;
    initiator.discard();
    acceptor.discard();
  }

  String describe() {
    return "link " + id + " (" + initiator.owner.name() + " -> " + acceptor.owner.name() + ")";
  }

  /** One end of the connection: what its owner writes to, and the queue of frames towards it. */
  final class End implements Outbound, Connection {
    final Endpoint owner;
    End peer;
    final ArrayDeque<ByteBuf> inbox = new ArrayDeque<>();
    private final List<ByteBuf> unflushed = new ArrayList<>();

    /** Bytes that reached this end and do not form a whole frame yet (a frame may span writes). */
    private final ByteBuf stream = Unpooled.buffer();

    private End(Endpoint owner) {
      this.owner = owner;
    }

    SimLink link() {
      return SimLink.this;
    }

    @Override
    public ByteBufAllocator alloc() {
      return UnpooledByteBufAllocator.DEFAULT;
    }

    @Override
    public void write(ByteBuf frame) {
      if (open) {
        unflushed.add(frame);
      } else {
        frame.release();
      }
    }

    /**
     * Sends what was written since the last flush as a byte stream, as TCP does: a frame's header
     * and payload may be separate writes, and the receiving end cuts the stream into frames by
     * their length field, as {@code FrameDecoder} does.
     */
    @Override
    public void flush() {
      if (!open) {
        return;
      }
      for (ByteBuf buf : unflushed) {
        peer.stream.writeBytes(buf);
        buf.release();
      }
      unflushed.clear();
      peer.cutFrames();
    }

    private void cutFrames() {
      while (stream.readableBytes() >= 4) {
        int length = 4 + stream.getInt(stream.readerIndex() + FrameDescriptor.LENGTH_OFFSET);
        if (stream.readableBytes() < length) {
          break;
        }
        ByteBuf frame = Unpooled.buffer(length);
        stream.readBytes(frame, length);
        inbox.add(frame);
      }
      stream.discardReadBytes();
    }

    @Override
    public boolean isActive() {
      return open;
    }

    @Override
    public boolean isWritable() {
      return open;
    }

    @Override
    public void close() {
      network.closeLater(SimLink.this, owner.name() + " closes " + describe());
    }

    private void discard() {
      inbox.forEach(ByteBuf::release);
      inbox.clear();
      stream.clear();
      unflushed.forEach(ByteBuf::release);
      unflushed.clear();
    }

    @Override
    public String toString() {
      return owner.name() + "@" + describe();
    }
  }

  static String describe(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    String name = MessageType.name(type) + "#" + FrameDescriptor.requestId(frame);
    if (type == MessageType.SUBSCRIBE_RECORDS) {
      StringBuilder sns = new StringBuilder(" shard " + SubscribeRecordsDescriptor.shardId(frame));
      for (int i = 0; i < SubscribeRecordsDescriptor.count(frame); i++) {
        sns.append(' ').append(Sn.describe(SubscribeRecordsDescriptor.sn(frame, i)));
      }
      return name + sns + " progress " + Sn.describe(SubscribeRecordsDescriptor.progress(frame));
    }
    if (type == MessageType.SYNC_FETCH) {
      return name
          + " shard "
          + SyncFetchDescriptor.shardId(frame)
          + " sequencer "
          + SyncFetchDescriptor.sequencerNodeId(frame)
          + "#"
          + SyncFetchDescriptor.incarnation(frame)
          + " ("
          + Sn.describe(SyncFetchDescriptor.afterSn(frame))
          + ", "
          + Sn.describe(SyncFetchDescriptor.throughSn(frame))
          + "]";
    }
    if (type == MessageType.SYNC_ENTRIES) {
      return name
          + " shard "
          + SyncEntriesDescriptor.shardId(frame)
          + " from replica "
          + SyncEntriesDescriptor.replicaNodeId(frame)
          + " flags "
          + SyncEntriesDescriptor.flags(frame)
          + " covered "
          + Sn.describe(SyncEntriesDescriptor.coveredSn(frame))
          + " trimmed "
          + Sn.describe(SyncEntriesDescriptor.trimPoint(frame))
          + " x"
          + SyncEntriesDescriptor.count(frame)
          + (SimTrace.DETAILED ? entries(frame) : "");
    }
    if (SimTrace.DETAILED) {
      String detailed = describeTokens(type, name, frame);
      if (detailed != null) {
        return detailed;
      }
    }
    if (type == MessageType.WATERMARK) {
      return name
          + " color "
          + WatermarkDescriptor.colorId(frame)
          + " "
          + Sn.describe(WatermarkDescriptor.watermark(frame));
    }
    if (type == MessageType.WELCOME) {
      return name + " incarnation " + WelcomeDescriptor.incarnation(frame);
    }
    if (type == MessageType.SUBSCRIBE_PROGRESS) {
      return name
          + " shard "
          + SubscribeProgressDescriptor.shardId(frame)
          + " progress "
          + Sn.describe(SubscribeProgressDescriptor.progress(frame));
    }
    return name;
  }

  /**
   * With {@link SimTrace#DETAILED}: the tokens (and SNs) of the frames that carry them, or null.
   */
  private static String describeTokens(byte type, String name, ByteBuf frame) {
    if (type == MessageType.ORDER_REQUEST) {
      StringBuilder tokens =
          new StringBuilder(
              " shard "
                  + OrderRequestDescriptor.shardId(frame)
                  + " color "
                  + OrderRequestDescriptor.colorId(frame));
      for (int i = 0; i < OrderRequestDescriptor.count(frame); i++) {
        tokens
            .append(' ')
            .append(
                token(
                    OrderRequestDescriptor.tokenSession(frame, i),
                    OrderRequestDescriptor.tokenSequence(frame, i)));
      }
      return name + tokens;
    }
    if (type == MessageType.ORDER_RESPONSE) {
      StringBuilder tokens = new StringBuilder(" shard " + OrderResponseDescriptor.shardId(frame));
      for (int i = 0; i < OrderResponseDescriptor.count(frame); i++) {
        tokens
            .append(' ')
            .append(
                token(
                    OrderResponseDescriptor.tokenSession(frame, i),
                    OrderResponseDescriptor.tokenSequence(frame, i)))
            .append('=')
            .append(Sn.describe(OrderResponseDescriptor.sn(frame, i)));
      }
      return name + tokens;
    }
    if (type == MessageType.APPEND) {
      return name
          + " "
          + token(AppendDescriptor.tokenSession(frame), AppendDescriptor.tokenSequence(frame))
          + " shard "
          + AppendDescriptor.shardId(frame);
    }
    if (type == MessageType.APPEND_ACK) {
      return name
          + " "
          + token(AppendAckDescriptor.tokenSession(frame), AppendAckDescriptor.tokenSequence(frame))
          + "="
          + Sn.describe(AppendAckDescriptor.sn(frame))
          + " from replica "
          + AppendAckDescriptor.replicaNodeId(frame);
    }
    if (type == MessageType.TOKEN_SYNC) {
      StringBuilder tokens =
          new StringBuilder(
              " shard "
                  + TokenSyncDescriptor.shardId(frame)
                  + " from replica "
                  + TokenSyncDescriptor.replicaNodeId(frame)
                  + " sequencer "
                  + TokenSyncDescriptor.sequencerNodeId(frame)
                  + "#"
                  + TokenSyncDescriptor.incarnation(frame));
      for (int i = 0; i < TokenSyncDescriptor.count(frame); i++) {
        tokens
            .append(' ')
            .append(
                token(
                    TokenSyncDescriptor.tokenSession(frame, i),
                    TokenSyncDescriptor.tokenSequence(frame, i)));
      }
      return name + tokens;
    }
    if (type == MessageType.TOKEN_SYNC_RESPONSE) {
      StringBuilder sns =
          new StringBuilder(" from replica " + TokenSyncResponseDescriptor.replicaNodeId(frame));
      for (int i = 0; i < TokenSyncResponseDescriptor.count(frame); i++) {
        sns.append(' ').append(Sn.describe(TokenSyncResponseDescriptor.sn(frame, i)));
      }
      return name + sns;
    }
    return null;
  }

  private static String entries(ByteBuf frame) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < SyncEntriesDescriptor.count(frame); i++) {
      out.append(' ')
          .append(
              token(
                  SyncEntriesDescriptor.tokenSession(frame, i),
                  SyncEntriesDescriptor.tokenSequence(frame, i)))
          .append('=')
          .append(Sn.describe(SyncEntriesDescriptor.sn(frame, i)));
    }
    return out.toString();
  }

  private static String token(long session, long sequence) {
    return session + ":" + sequence;
  }
}
