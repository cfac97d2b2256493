package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * METADATA_REQUEST has an empty body. METADATA_RESPONSE carries the topology and the limits a
 * client checks before sending. Variable-length; strings are a 2-byte length and UTF-8 bytes.
 *
 * <pre>
 *  topology version (8) | max record bytes (4)
 *  node count (4)   | per node:   id (4), kind (1), host (str), port (4)
 *  color count (4)  | per color:  id (4), parent id (4), sequencer id (4), name (str)
 *  shard count (4)  | per shard:  id (4), color id (4), replica count (4), replica ids (4 each)
 * </pre>
 */
public final class MetadataDescriptor {
  /** A topology with no more entries than this in any list is accepted by decoders. */
  public static final int MAX_ITEMS = 1 << 16;

  private MetadataDescriptor() {}

  /** What a METADATA_RESPONSE carries. */
  public record Metadata(Topology topology, int maxRecordBytes) {}

  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId) {
    return FrameDescriptor.allocate(alloc, MessageType.METADATA_REQUEST, requestId, 0);
  }

  public static void validateRequest(ByteBuf frame) {
    Bodies.requireLength(frame, "METADATA_REQUEST", 0);
  }

  public static ByteBuf encodeResponse(
      ByteBufAllocator alloc, long requestId, Topology topology, int maxRecordBytes) {
    ByteBuf body = alloc.buffer();
    try {
      body.writeLong(topology.version());
      body.writeInt(maxRecordBytes);
      writeTopology(body, topology);
      ByteBuf frame =
          FrameDescriptor.allocate(
              alloc, MessageType.METADATA_RESPONSE, requestId, body.readableBytes());
      frame.writeBytes(body);
      return frame;
    } finally {
      body.release();
    }
  }

  /** Writes nodes, colors and shards as METADATA_RESPONSE lays them out after its limits. */
  static void writeTopology(ByteBuf body, Topology topology) {
    body.writeInt(topology.nodes().size());
    for (NodeAddress node : topology.nodes().values()) {
      body.writeInt(node.id());
      body.writeByte(node.kind().ordinal());
      writeString(body, node.host());
      body.writeInt(node.port());
    }
    List<Color> colors = topology.colors();
    body.writeInt(colors.size());
    for (Color color : colors) {
      body.writeInt(color.id());
      body.writeInt(color.parentId());
      body.writeInt(color.sequencerId());
      writeString(body, color.name());
    }
    List<Shard> shards = topology.shards();
    body.writeInt(shards.size());
    for (Shard shard : shards) {
      body.writeInt(shard.id());
      body.writeInt(shard.colorId());
      body.writeInt(shard.replicaNodeIds().size());
      for (int replica : shard.replicaNodeIds()) {
        body.writeInt(replica);
      }
    }
  }

  /** Decodes and validates a METADATA_RESPONSE frame; malformed input throws. */
  public static Metadata decodeResponse(ByteBuf frame) {
    ByteBuf in = frame.slice(FrameDescriptor.body(frame), FrameDescriptor.bodyLength(frame));
    try {
      long version = in.readLong();
      int maxRecordBytes = in.readInt();
      Topology topology = readTopology(in, version, "METADATA_RESPONSE");
      if (in.isReadable()) {
        throw new ProtocolException(
            "METADATA_RESPONSE has " + in.readableBytes() + " trailing bytes");
      }
      return new Metadata(topology, maxRecordBytes);
    } catch (IndexOutOfBoundsException e) {
      throw new ProtocolException("METADATA_RESPONSE is truncated");
    }
  }

  /**
   * Reads what {@link #writeTopology} wrote, as the topology of {@code version}.
   *
   * @throws ProtocolException naming {@code frame} for an unknown node kind, a bad count or an
   *     inconsistent topology
   * @throws IndexOutOfBoundsException when {@code in} ends early
   */
  static Topology readTopology(ByteBuf in, long version, String frame) {
    try {
      return readTopologyUnchecked(in, version, frame);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException(frame + " is inconsistent: " + e.getMessage());
    }
  }

  private static Topology readTopologyUnchecked(ByteBuf in, long version, String frame) {
    int nodeCount = count(in, frame, "node");
    List<NodeAddress> nodes = new ArrayList<>(nodeCount);
    for (int i = 0; i < nodeCount; i++) {
      int id = in.readInt();
      int kind = in.readUnsignedByte();
      if (kind >= NodeAddress.Kind.values().length) {
        throw new ProtocolException(frame + ": unknown node kind " + kind);
      }
      String host = readString(in);
      nodes.add(new NodeAddress(id, NodeAddress.Kind.values()[kind], host, in.readInt()));
    }
    int colorCount = count(in, frame, "color");
    List<Color> colors = new ArrayList<>(colorCount);
    for (int i = 0; i < colorCount; i++) {
      int id = in.readInt();
      int parent = in.readInt();
      int sequencer = in.readInt();
      colors.add(new Color(id, readString(in), parent, sequencer));
    }
    int shardCount = count(in, frame, "shard");
    List<Shard> shards = new ArrayList<>(shardCount);
    for (int i = 0; i < shardCount; i++) {
      int id = in.readInt();
      int color = in.readInt();
      int replicaCount = count(in, frame, "replica");
      List<Integer> replicas = new ArrayList<>(replicaCount);
      for (int r = 0; r < replicaCount; r++) {
        replicas.add(in.readInt());
      }
      shards.add(new Shard(id, color, replicas));
    }
    return new Topology(version, nodes, colors, shards);
  }

  private static int count(ByteBuf in, String frame, String what) {
    int count = in.readInt();
    if (count < 0 || count > MAX_ITEMS) {
      throw new ProtocolException(frame + ": bad " + what + " count " + count);
    }
    return count;
  }

  private static void writeString(ByteBuf out, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeShort(bytes.length);
    out.writeBytes(bytes);
  }

  private static String readString(ByteBuf in) {
    int length = in.readUnsignedShort();
    return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
  }
}
