package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.OptionalLong;

/**
 * ALTER_COLOR and ALTER_COLOR_RESPONSE bodies (docs/protocol.md#alter_color): AlterColor of the
 * admin service, the settings of a color that may change (its retention,
 * docs/architecture.md#retention), sent on the data plane to any node, which relays it to the admin
 * service (docs/architecture.md#admin-requests-on-the-data-plane).
 *
 * <pre>
 * ALTER_COLOR
 *  name (str) | given (1: bit 0 retention.ms, bit 1 retention.bytes) | retention.ms (8) | retention.bytes (8)
 *
 * ALTER_COLOR_RESPONSE
 *  changed (1: 1 a new version was committed, 0 the color had these settings) | topology version (8)
 *  unacknowledged node count (4) | node ids (4 each) | color entry (docs/protocol.md#admin-frames)
 * </pre>
 *
 * A value that is not given must be -1 and leaves the setting unchanged.
 */
public final class AlterColorDescriptor {
  public static final int NAME_OFFSET = 0;

  /** Bit of the "given" byte: the request sets retention.ms. */
  public static final int RETENTION_MS_GIVEN = 1;

  /** Bit of the "given" byte: the request sets retention.bytes. */
  public static final int RETENTION_BYTES_GIVEN = 2;

  public static final int CHANGED_OFFSET = 0;
  public static final int VERSION_OFFSET = 1;
  public static final int UNACKNOWLEDGED_COUNT_OFFSET = 9;
  public static final int UNACKNOWLEDGED_OFFSET = 13;

  private static final int KNOWN_BITS = RETENTION_MS_GIVEN | RETENTION_BYTES_GIVEN;
  private static final long NOT_GIVEN = -1L;
  private static final String REQUEST = "ALTER_COLOR";
  private static final String RESPONSE = "ALTER_COLOR_RESPONSE";

  private AlterColorDescriptor() {}

  /**
   * What an ALTER_COLOR asks for; the service checks the values.
   *
   * @param retentionMs the new retention.ms; empty leaves it unchanged
   * @param retentionBytes the new retention.bytes; empty leaves it unchanged
   */
  public record Request(String name, OptionalLong retentionMs, OptionalLong retentionBytes) {}

  /**
   * What an ALTER_COLOR_RESPONSE carries.
   *
   * @param changed false when the color already had these settings (no new version)
   * @param topologyVersion the topology version that holds the settings
   * @param unacknowledgedNodeIds nodes that had not applied that version when the service answered
   * @param color the color with its settings after the call
   */
  public record Response(
      boolean changed,
      long topologyVersion,
      List<Integer> unacknowledgedNodeIds,
      ColorEntry color) {
    public Response {
      unacknowledgedNodeIds = List.copyOf(unacknowledgedNodeIds);
    }
  }

  /**
   * @throws IllegalArgumentException when the name does not fit its 2-byte length
   */
  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId, Request request) {
    ByteBuf body = alloc.buffer();
    try {
      AdminBodies.writeString(body, request.name());
      int given =
          (request.retentionMs().isPresent() ? RETENTION_MS_GIVEN : 0)
              | (request.retentionBytes().isPresent() ? RETENTION_BYTES_GIVEN : 0);
      body.writeByte(given);
      body.writeLong(request.retentionMs().orElse(NOT_GIVEN));
      body.writeLong(request.retentionBytes().orElse(NOT_GIVEN));
      return CreateColorDescriptor.frame(alloc, MessageType.ALTER_COLOR, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates an ALTER_COLOR frame; malformed input throws. */
  public static Request decodeRequest(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      String name = AdminBodies.readString(in);
      int given = in.readUnsignedByte();
      if ((given & ~KNOWN_BITS) != 0) {
        throw new ProtocolException(
            REQUEST + ": unknown bits in the given-settings byte 0x" + Integer.toHexString(given));
      }
      long retentionMs = in.readLong();
      long retentionBytes = in.readLong();
      requireNotGivenIsMinusOne(given, RETENTION_MS_GIVEN, "retention.ms", retentionMs);
      requireNotGivenIsMinusOne(given, RETENTION_BYTES_GIVEN, "retention.bytes", retentionBytes);
      AdminBodies.requireEnd(in, REQUEST);
      return new Request(
          name,
          (given & RETENTION_MS_GIVEN) != 0 ? OptionalLong.of(retentionMs) : OptionalLong.empty(),
          (given & RETENTION_BYTES_GIVEN) != 0
              ? OptionalLong.of(retentionBytes)
              : OptionalLong.empty());
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(REQUEST);
    }
  }

  private static void requireNotGivenIsMinusOne(int given, int bit, String setting, long value) {
    if ((given & bit) == 0 && value != NOT_GIVEN) {
      throw new ProtocolException(
          REQUEST + ": " + setting + " is not given but holds " + value + " instead of -1");
    }
  }

  public static ByteBuf encodeResponse(ByteBufAllocator alloc, long requestId, Response response) {
    ByteBuf body = alloc.buffer();
    try {
      AdminBodies.writeOutcome(
          body,
          new AdminBodies.Outcome(
              response.changed(),
              response.topologyVersion(),
              response.unacknowledgedNodeIds(),
              response.color()));
      return CreateColorDescriptor.frame(alloc, MessageType.ALTER_COLOR_RESPONSE, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates an ALTER_COLOR_RESPONSE frame; malformed input throws. */
  public static Response decodeResponse(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      AdminBodies.Outcome outcome = AdminBodies.readOutcome(in, RESPONSE, "changed");
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
}
