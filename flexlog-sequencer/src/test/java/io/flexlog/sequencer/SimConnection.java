package io.flexlog.sequencer;

import io.flexlog.core.protocol.FrameDecoder;
import io.flexlog.sequencer.net.SequencerChannelHandler;
import io.flexlog.sequencer.ordering.Outbound;
import io.flexlog.sequencer.ordering.PeerLink;
import io.flexlog.sequencer.ordering.SequencerInbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated TCP connection from an initiator (a fake replica, or a child node connecting to its
 * parent) to a sequencer node. Each direction is a FIFO queue of frames; the simulation decides
 * when the head of a queue is delivered, independently of every other queue. Closing it loses
 * whatever is still queued, in both directions.
 *
 * <p>The node's end is the production pipeline ({@link FrameDecoder} and {@link
 * SequencerChannelHandler}) in an {@link EmbeddedChannel}, fed frame by frame; what the node writes
 * comes out of the channel when it flushes.
 */
final class SimConnection {
  final int id;
  final SimNode acceptor;
  final int acceptorIncarnation;
  final EmbeddedChannel channel;

  /** The initiator: exactly one of {@code replica} and {@code child} is set. */
  final SimReplica replica;

  final SimNode child;
  final int childIncarnation;
  PeerLink childLink;

  final ArrayDeque<ByteBuf> toAcceptor = new ArrayDeque<>();
  final ArrayDeque<ByteBuf> toInitiator = new ArrayDeque<>();
  private final List<ByteBuf> unflushed = new ArrayList<>();
  boolean open = true;

  SimConnection(int id, SimNode acceptor, SimReplica replica, SimNode child) {
    this.id = id;
    this.acceptor = acceptor;
    this.acceptorIncarnation = acceptor.incarnation;
    this.replica = replica;
    this.child = child;
    this.childIncarnation = child == null ? 0 : child.incarnation;
    this.channel = new EmbeddedChannel();
    channel
        .pipeline()
        .addLast(
            new FrameDecoder(1 << 20),
            new SequencerChannelHandler(
                new SequencerInbound(
                    acceptor.service,
                    UnpooledByteBufAllocator.DEFAULT,
                    SequencerConfig.DEFAULT_MAX_RECORD_BYTES)));
  }

  /** The initiator's sending side. */
  Outbound initiatorOutbound() {
    return new Outbound() {
      @Override
      public void write(ByteBuf frame) {
        if (open) {
          unflushed.add(frame);
        } else {
          frame.release();
        }
      }

      @Override
      public void flush() {
        toAcceptor.addAll(unflushed);
        unflushed.clear();
      }

      @Override
      public void close() {
        throw new AssertionError("the initiator never closes a connection itself");
      }

      @Override
      public String toString() {
        return "sim connection " + id;
      }
    };
  }

  /** Moves what the node flushed into the queue towards the initiator. */
  void collectFromAcceptor() {
    Object frame;
    while ((frame = channel.readOutbound()) != null) {
      if (open) {
        toInitiator.add((ByteBuf) frame);
      } else {
        ((ByteBuf) frame).release();
      }
    }
  }

  boolean hasQueued() {
    return !toAcceptor.isEmpty() || !toInitiator.isEmpty();
  }

  /** Loses everything in flight and closes the node's end (which tells its service). */
  void close() {
    open = false;
    toAcceptor.forEach(ByteBuf::release);
    toInitiator.forEach(ByteBuf::release);
    unflushed.forEach(ByteBuf::release);
    toAcceptor.clear();
    toInitiator.clear();
    unflushed.clear();
    channel.finishAndReleaseAll();
  }

  String describe() {
    String from = replica != null ? "replica " + replica.nodeId : "node " + child.id;
    return "conn " + id + " (" + from + " -> node " + acceptor.id + ")";
  }
}
