package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.AdminRelay;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.TailDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.Executor;

/**
 * The inbound side of a sequencer node without sockets: dispatches the validated frames of one
 * connection from a replica or a child node to the {@link OrderingService} by type, and answers
 * refusals with ERROR frames on the same connection. {@code SequencerChannelHandler} drives it from
 * a Netty channel; the deterministic simulations drive it from their in-memory network, so both run
 * the same dispatch.
 *
 * <p>Threading: every method runs on the node's event loop.
 */
public final class SequencerInbound {
  private final OrderingService service;
  private final ByteBufAllocator alloc;
  private final int maxRecordBytes;
  private final AdminRelay admin;
  private final Executor loop;

  /** A node without the control plane: admin requests are refused ({@link AdminRelay#NONE}). */
  public SequencerInbound(OrderingService service, ByteBufAllocator alloc, int maxRecordBytes) {
    this(service, alloc, maxRecordBytes, AdminRelay.NONE, Runnable::run);
  }

  /**
   * @param admin serves the admin requests (CREATE_COLOR, ALTER_COLOR, DESCRIBE_COLORS,
   *     DESCRIBE_CLUSTER)
   * @param loop the node's event loop, where the relayed answers are written
   */
  public SequencerInbound(
      OrderingService service,
      ByteBufAllocator alloc,
      int maxRecordBytes,
      AdminRelay admin,
      Executor loop) {
    this.service = service;
    this.alloc = alloc;
    this.maxRecordBytes = maxRecordBytes;
    this.admin = admin;
    this.loop = loop;
  }

  /** A peer connected; the returned link names the connection in the calls below. */
  public PeerLink onConnected(Outbound out) {
    return service.onConnected(out);
  }

  /**
   * Handles one validated frame; the caller keeps ownership of it. A refused request is answered
   * with an ERROR frame (written and flushed on the link), and the connection stays.
   *
   * @return null, or the protocol violation for which the caller must close the connection (after
   *     telling the peer why, if it can)
   */
  public String onFrame(PeerLink link, ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    long requestId = FrameDescriptor.requestId(frame);
    if (MessageType.isAdminRequest(type)) {
      Outbound out = link.out();
      AdminRelay.serve(
          admin,
          frame,
          loop,
          answer -> {
            out.write(answer);
            out.flush();
          });
      return null;
    }
    if (!accepts(type)) {
      return "a sequencer does not accept " + MessageType.name(type) + " frames";
    }
    Rejection rejection =
        switch (type) {
          case MessageType.ORDER_REQUEST -> service.onOrderRequest(link, frame);
          case MessageType.HELLO -> service.onHello(link, frame);
          case MessageType.SEQUENCER_HELLO -> service.onSequencerHello(link, frame);
          case MessageType.RANGE_REQUEST -> service.onRangeRequest(link, frame);
          case MessageType.TAIL_REQUEST -> onTailRequest(link, requestId, frame);
          case MessageType.METADATA_REQUEST -> {
            link.out()
                .write(
                    MetadataDescriptor.encodeResponse(
                        alloc, requestId, service.topology(), maxRecordBytes));
            link.out().flush();
            yield null;
          }
          default -> throw new IllegalStateException("unreachable: " + type);
        };
    if (rejection != null) {
      service.onRefused(rejection);
      link.out()
          .write(ErrorDescriptor.encode(alloc, requestId, rejection.code(), rejection.message()));
      link.out().flush();
    }
    return null;
  }

  private Rejection onTailRequest(PeerLink link, long requestId, ByteBuf frame) {
    int colorId = TailDescriptor.colorId(frame);
    long tail = service.tailOf(colorId);
    if (tail < 0) {
      return new Rejection(
          ErrorCode.UNKNOWN_COLOR, "this sequencer node hosts no role of color id " + colorId);
    }
    link.out().write(TailDescriptor.encodeResponse(alloc, requestId, colorId, Sn.NONE, tail));
    link.out().flush();
    return null;
  }

  private static boolean accepts(byte type) {
    return type == MessageType.ORDER_REQUEST
        || type == MessageType.HELLO
        || type == MessageType.SEQUENCER_HELLO
        || type == MessageType.RANGE_REQUEST
        || type == MessageType.METADATA_REQUEST
        || type == MessageType.TAIL_REQUEST;
  }

  /** The connection closed. */
  public void onDisconnect(PeerLink link) {
    service.onDisconnect(link);
  }
}
