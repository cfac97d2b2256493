package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
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
 *  name (str) | parent (str)
 *
 * CREATE_COLOR_RESPONSE
 *  created (1: 1 new, 0 it existed with the same settings) | topology version (8)
 *  unacknowledged node count (4) | node ids (4 each) | color entry (docs/protocol.md#admin-frames)
 * </pre>
 */
public final class CreateColorDescriptor {
  public static final int SHARDS_OFFSET = 0;
  public static final int REPLICATION_OFFSET = 4;
  public static final int SEQUENCER_OFFSET = 8;
  public static final int NAME_OFFSET = 12;

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
   */
  public record Request(
      String name, String parent, int shards, int replicationFactor, int sequencerNodeId) {}

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
      AdminBodies.requireEnd(in, REQUEST);
      return new Request(name, parent, shards, replication, sequencer);
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(REQUEST);
    }
  }

  public static ByteBuf encodeResponse(ByteBufAllocator alloc, long requestId, Response response) {
    ByteBuf body = alloc.buffer();
    try {
      body.writeByte(response.created() ? 1 : 0);
      body.writeLong(response.topologyVersion());
      body.writeInt(response.unacknowledgedNodeIds().size());
      for (int node : response.unacknowledgedNodeIds()) {
        body.writeInt(node);
      }
      AdminBodies.writeColor(body, response.color());
      return frame(alloc, MessageType.CREATE_COLOR_RESPONSE, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates a CREATE_COLOR_RESPONSE frame; malformed input throws. */
  public static Response decodeResponse(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      int created = in.readUnsignedByte();
      if (created > 1) {
        throw new ProtocolException(RESPONSE + ": created flag must be 0 or 1, got " + created);
      }
      long version = in.readLong();
      int count = AdminBodies.readCount(in, RESPONSE, "unacknowledged node", 4);
      List<Integer> nodes = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        nodes.add(in.readInt());
      }
      ColorEntry color = AdminBodies.readColor(in, RESPONSE);
      AdminBodies.requireEnd(in, RESPONSE);
      return new Response(created == 1, version, nodes, color);
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
