package io.flexlog.core.protocol;

import io.flexlog.core.model.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * DESCRIBE_CLUSTER and DESCRIBE_CLUSTER_RESPONSE bodies (docs/protocol.md#describe_cluster): the
 * topology as the admin service's metadata has it (nodes, colors, shards), the answering node's
 * record size limit, and the admin services the answering node relays to.
 *
 * <pre>
 * DESCRIBE_CLUSTER
 *  (empty)
 *
 * DESCRIBE_CLUSTER_RESPONSE
 *  topology version (8) | max record bytes (4)
 *  nodes, colors, shards exactly as in METADATA_RESPONSE
 *  admin service count (4) | per service: node id (4), host (str), port (4)
 * </pre>
 */
public final class DescribeClusterDescriptor {
  public static final int VERSION_OFFSET = 0;
  public static final int MAX_RECORD_BYTES_OFFSET = 8;
  public static final int NODES_OFFSET = 12;

  private static final String RESPONSE = "DESCRIBE_CLUSTER_RESPONSE";

  private DescribeClusterDescriptor() {}

  /**
   * An admin service of the cluster (a node of the metadata quorum).
   *
   * @param nodeId the node that runs it
   */
  public record AdminService(int nodeId, String host, int port) {}

  /** What a DESCRIBE_CLUSTER_RESPONSE carries. */
  public record Response(Topology topology, int maxRecordBytes, List<AdminService> adminServices) {
    public Response {
      adminServices = List.copyOf(adminServices);
    }
  }

  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId) {
    return FrameDescriptor.allocate(alloc, MessageType.DESCRIBE_CLUSTER, requestId, 0);
  }

  public static void validateRequest(ByteBuf frame) {
    Bodies.requireLength(frame, "DESCRIBE_CLUSTER", 0);
  }

  public static ByteBuf encodeResponse(ByteBufAllocator alloc, long requestId, Response response) {
    ByteBuf body = alloc.buffer();
    try {
      body.writeLong(response.topology().version());
      body.writeInt(response.maxRecordBytes());
      MetadataDescriptor.writeTopology(body, response.topology());
      body.writeInt(response.adminServices().size());
      for (AdminService service : response.adminServices()) {
        body.writeInt(service.nodeId());
        AdminBodies.writeString(body, service.host());
        body.writeInt(service.port());
      }
      return CreateColorDescriptor.frame(
          alloc, MessageType.DESCRIBE_CLUSTER_RESPONSE, requestId, body);
    } finally {
      body.release();
    }
  }

  /** Decodes and validates a DESCRIBE_CLUSTER_RESPONSE frame; malformed input throws. */
  public static Response decodeResponse(ByteBuf frame) {
    ByteBuf in = AdminBodies.body(frame);
    try {
      long version = in.readLong();
      int maxRecordBytes = in.readInt();
      Topology topology = MetadataDescriptor.readTopology(in, version, RESPONSE);
      int count = AdminBodies.readCount(in, RESPONSE, "admin service", 10);
      List<AdminService> services = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int node = in.readInt();
        String host = AdminBodies.readString(in);
        services.add(new AdminService(node, host, in.readInt()));
      }
      AdminBodies.requireEnd(in, RESPONSE);
      return new Response(topology, maxRecordBytes, services);
    } catch (IndexOutOfBoundsException e) {
      throw AdminBodies.truncated(RESPONSE);
    }
  }
}
