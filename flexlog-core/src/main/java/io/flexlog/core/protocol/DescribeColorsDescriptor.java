package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * DESCRIBE_COLORS and DESCRIBE_COLORS_RESPONSE bodies (docs/protocol.md#describe_colors): one
 * color, or every color, as the admin service's metadata has them, relayed by any node.
 *
 * <pre>
 * DESCRIBE_COLORS
 *  name (str; empty for every color)
 *
 * DESCRIBE_COLORS_RESPONSE
 *  topology version (8) | color count (4) | color entries (docs/protocol.md#admin-frames), in id order
 * </pre>
 *
 * A DESCRIBE_COLORS for a name the cluster does not have is answered with ERROR {@code
 * UNKNOWN_COLOR}.
 */
public final class DescribeColorsDescriptor {
  public static final int NAME_OFFSET = 0;
  public static final int VERSION_OFFSET = 0;
  public static final int COUNT_OFFSET = 8;
  public static final int COLORS_OFFSET = 12;

  private static final String REQUEST = "DESCRIBE_COLORS";
  private static final String RESPONSE = "DESCRIBE_COLORS_RESPONSE";

  private DescribeColorsDescriptor() {}

  /** What a DESCRIBE_COLORS_RESPONSE carries. */
  public record Response(long topologyVersion, List<ColorEntry> colors) {
    public Response {
      colors = List.copyOf(colors);
    }
  }

  /**
   * @param name the color to describe, or empty for every color
   */
  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId, String name) {
    ByteBuf body = alloc.buffer();
    try {
      AdminBodies.writeString(body, name);
      return CreateColorDescriptor.frame(alloc, MessageType.DESCRIBE_COLORS, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates a DESCRIBE_COLORS frame: the name asked for, empty for every color. */
  public static String decodeRequest(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      String name = AdminBodies.readString(in);
      AdminBodies.requireEnd(in, REQUEST);
      return name;
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(REQUEST);
    }
  }

  public static ByteBuf encodeResponse(ByteBufAllocator alloc, long requestId, Response response) {
    ByteBuf body = alloc.buffer();
    try {
      body.writeLong(response.topologyVersion());
      body.writeInt(response.colors().size());
      for (ColorEntry color : response.colors()) {
        AdminBodies.writeColor(body, color);
      }
      return CreateColorDescriptor.frame(
          alloc, MessageType.DESCRIBE_COLORS_RESPONSE, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates a DESCRIBE_COLORS_RESPONSE frame; malformed input throws. */
  public static Response decodeResponse(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      long version = in.readLong();
      int count = AdminBodies.readCount(in, RESPONSE, "color", AdminBodies.MIN_COLOR_BYTES);
      List<ColorEntry> colors = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        colors.add(AdminBodies.readColor(in, RESPONSE));
      }
      AdminBodies.requireEnd(in, RESPONSE);
      return new Response(version, colors);
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(RESPONSE);
    }
  }
}
