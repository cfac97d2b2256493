package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.TierUsage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * REPLICA_STATUS and REPLICA_STATUS_RESPONSE bodies
 * (docs/protocol.md#replica_status-and-replica_status_response): a client asks a replica node, on
 * its data-plane port, for its storage per tier and its colors. The replica answers itself; nothing
 * is relayed.
 *
 * <pre>
 * REPLICA_STATUS
 *  (empty)
 *
 * REPLICA_STATUS_RESPONSE
 *  node id (4)
 *  cache records (8) | cache bytes (8)
 *  pm records (8) | pm bytes (8) | pm capacity bytes (8)
 *  ssd records (8) | ssd bytes (8) | ssd segments (4)
 *  color count (4)
 *  per color (44): color id (4) | trim point (8) | tail (8) | records (8)
 *                  | retention ms (8) | retention bytes (8)
 * </pre>
 */
public final class ReplicaStatusDescriptor {
  public static final int NODE_ID_OFFSET = 0;
  public static final int CACHE_RECORDS_OFFSET = 4;
  public static final int CACHE_BYTES_OFFSET = 12;
  public static final int PM_RECORDS_OFFSET = 20;
  public static final int PM_BYTES_OFFSET = 28;
  public static final int PM_CAPACITY_OFFSET = 36;
  public static final int SSD_RECORDS_OFFSET = 44;
  public static final int SSD_BYTES_OFFSET = 52;
  public static final int SSD_SEGMENTS_OFFSET = 60;
  public static final int COLOR_COUNT_OFFSET = 64;
  public static final int COLORS_OFFSET = 68;

  /** Bytes before the colors. */
  public static final int FIXED_LENGTH = COLORS_OFFSET;

  /** Bytes of one color entry. */
  public static final int COLOR_LENGTH = 44;

  private static final String RESPONSE = "REPLICA_STATUS_RESPONSE";

  private ReplicaStatusDescriptor() {}

  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId) {
    return FrameDescriptor.allocate(alloc, MessageType.REPLICA_STATUS, requestId, 0);
  }

  public static void validateRequest(ByteBuf frame) {
    Bodies.requireLength(frame, "REPLICA_STATUS", 0);
  }

  public static ByteBuf encodeResponse(
      ByteBufAllocator alloc, long requestId, ReplicaDescription replica) {
    List<ReplicaDescription.ColorState> colors = replica.colors();
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc,
            MessageType.REPLICA_STATUS_RESPONSE,
            requestId,
            FIXED_LENGTH + COLOR_LENGTH * colors.size());
    TierUsage t = replica.tiers();
    buf.writeInt(replica.nodeId());
    buf.writeLong(t.cacheRecords()).writeLong(t.cacheBytes());
    buf.writeLong(t.pmRecords()).writeLong(t.pmBytes()).writeLong(t.pmCapacityBytes());
    buf.writeLong(t.ssdRecords()).writeLong(t.ssdBytes()).writeInt(t.ssdSegments());
    buf.writeInt(colors.size());
    for (ReplicaDescription.ColorState c : colors) {
      buf.writeInt(c.colorId()).writeLong(c.trimPoint()).writeLong(c.tail()).writeLong(c.records());
      buf.writeLong(c.retention().ms()).writeLong(c.retention().bytes());
    }
    return buf;
  }

  /** Decodes and validates a REPLICA_STATUS_RESPONSE frame; malformed input throws. */
  public static ReplicaDescription decodeResponse(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      int nodeId = in.readInt();
      TierUsage tiers =
          new TierUsage(
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readInt());
      int count = AdminBodies.readCount(in, RESPONSE, "color", COLOR_LENGTH);
      List<ReplicaDescription.ColorState> colors = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int colorId = in.readInt();
        long trimPoint = in.readLong();
        long tail = in.readLong();
        long records = in.readLong();
        Retention retention = new Retention(in.readLong(), in.readLong());
        if (records < 0) {
          throw new IllegalArgumentException("records of color id " + colorId + " is " + records);
        }
        colors.add(new ReplicaDescription.ColorState(colorId, trimPoint, tail, records, retention));
      }
      AdminBodies.requireEnd(in, RESPONSE);
      return new ReplicaDescription(nodeId, tiers, colors);
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(RESPONSE);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException(RESPONSE + ": " + e.getMessage());
    }
  }
}
