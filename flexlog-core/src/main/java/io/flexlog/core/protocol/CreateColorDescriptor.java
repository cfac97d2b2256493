package io.flexlog.core.protocol;

import io.flexlog.core.model.Retention;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;

/**
 * CREATE_COLOR and CREATE_COLOR_RESPONSE bodies (docs/protocol.md#create_color): AddColor of the
 * admin service, sent on the data plane to any node, which relays it to the admin service
 * (docs/architecture.md#admin-requests-on-the-data-plane). Strings are an unsigned 2-byte length
 * and UTF-8 bytes.
 *
 * <pre>
 * CREATE_COLOR
 *  shards (4, 0 = 1) | replication factor (4, 0 = 3) | sequencer node id (4, -1 = the parent's)
 *  name (str) | parent (str) | optional: retention.ms (8) | retention.bytes (8)
 *
 * CREATE_COLOR_RESPONSE
 *  created (1: 1 new, 0 it existed with the same settings) | topology version (8)
 *  unacknowledged node count (4) | node ids (4 each) | color entry (docs/protocol.md#admin-frames)
 * </pre>
 *
 * The retention tail is written only when a limit is set (not -1), so that a CREATE_COLOR without
 * retention keeps the layout nodes without it accept; a request without it keeps everything.
 */
public final class CreateColorDescriptor {
  public static final int SHARDS_OFFSET = 0;
  public static final int REPLICATION_OFFSET = 4;
  public static final int SEQUENCER_OFFSET = 8;
  public static final int NAME_OFFSET = 12;

  /** Bytes of the optional retention tail after the parent's name. */
  public static final int RETENTION_TAIL_BYTES = 16;

  public static final int CREATED_OFFSET = 0;
  public static final int VERSION_OFFSET = 1;
  public static final int UNACKNOWLEDGED_COUNT_OFFSET = 9;
  public static final int UNACKNOWLEDGED_OFFSET = 13;

  /** The sequencer node field when the parent's node is to host the role. */
  public static final int PARENTS_SEQUENCER = -1;

  private static final String REQUEST = "CREATE_COLOR";
  private static final String RESPONSE = "CREATE_COLOR_RESPONSE";

  private CreateColorDescriptor() {}

  /**
   * What a CREATE_COLOR asks for; the service fills in defaults and checks the values.
   *
   * @param sequencerNodeId the node to host the role, or {@link #PARENTS_SEQUENCER}
   * @param retentionMs retention.ms, -1 (the default) keeps everything
   * @param retentionBytes retention.bytes, -1 (the default) for no limit
   */
  public record Request(
      String name,
      String parent,
      int shards,
      int replicationFactor,
      int sequencerNodeId,
      long retentionMs,
      long retentionBytes) {
    /** A request without retention (both limits -1). */
    public Request(
        String name, String parent, int shards, int replicationFactor, int sequencerNodeId) {
      this(
          name, parent, shards, replicationFactor, sequencerNodeId, Retention.KEEP, Retention.KEEP);
    }

    /** True when the request carries the retention tail: a limit other than -1. */
    public boolean hasRetention() {
      return retentionMs != Retention.KEEP || retentionBytes != Retention.KEEP;
    }
  }

  /**
   * What a CREATE_COLOR_RESPONSE carries.
   *
   * @param created false when the color already existed with the same settings
   * @param topologyVersion the topology version that holds the color
   * @param unacknowledgedNodeIds nodes that had not applied that version when the service answered
   */
  public record Response(
      boolean created,
      long topologyVersion,
      List<Integer> unacknowledgedNodeIds,
      ColorEntry color) {
    public Response {
      unacknowledgedNodeIds = List.copyOf(unacknowledgedNodeIds);
    }
  }

  /**
   * @throws IllegalArgumentException when a string does not fit its 2-byte length
   */
  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId, Request request) {
    ByteBuf body = alloc.buffer();
    try {
      body.writeInt(request.shards());
      body.writeInt(request.replicationFactor());
      body.writeInt(request.sequencerNodeId());
      AdminBodies.writeString(body, request.name());
      AdminBodies.writeString(body, request.parent());
      if (request.hasRetention()) {
        body.writeLong(request.retentionMs());
        body.writeLong(request.retentionBytes());
      }
      return frame(alloc, MessageType.CREATE_COLOR, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates a CREATE_COLOR frame; malformed input throws. */
  public static Request decodeRequest(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      int shards = in.readInt();
      int replication = in.readInt();
      int sequencer = in.readInt();
      String name = AdminBodies.readString(in);
      String parent = AdminBodies.readString(in);
      long retentionMs = Retention.KEEP;
      long retentionBytes = Retention.KEEP;
      if (in.isReadable()) {
        if (in.readableBytes() < RETENTION_TAIL_BYTES) {
          throw AdminBodies.truncated(REQUEST);
        }
        retentionMs = in.readLong();
        retentionBytes = in.readLong();
      }
      AdminBodies.requireEnd(in, REQUEST);
      return new Request(name, parent, shards, replication, sequencer, retentionMs, retentionBytes);
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(REQUEST);
    }
  }

  public static ByteBuf encodeResponse(ByteBufAllocator alloc, long requestId, Response response) {
    ByteBuf body = alloc.buffer();
    try {
      AdminBodies.writeOutcome(
          body,
          new AdminBodies.Outcome(
              response.created(),
              response.topologyVersion(),
              response.unacknowledgedNodeIds(),
              response.color()));
      return frame(alloc, MessageType.CREATE_COLOR_RESPONSE, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates a CREATE_COLOR_RESPONSE frame; malformed input throws. */
  public static Response decodeResponse(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      AdminBodies.Outcome outcome = AdminBodies.readOutcome(in, RESPONSE, "created");
      AdminBodies.requireEnd(in, RESPONSE);
      return new Response(
          outcome.flag(),
          outcome.topologyVersion(),
          outcome.unacknowledgedNodeIds(),
          outcome.color());
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(RESPONSE);
    }
  }

  static ByteBuf frame(ByteBufAllocator alloc, byte type, long requestId, ByteBuf body) {
    ByteBuf frame = FrameDescriptor.allocate(alloc, type, requestId, body.readableBytes());
    frame.writeBytes(body);
    return frame;
  }
}
