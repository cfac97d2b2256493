package io.flexlog.server.control;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Layout of the durable cluster metadata file ({@value MetadataStore#FILE_NAME}): a fixed header
 * and the topology as a protobuf {@code flexlog.admin.v1.Topology} message. Big-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     magic 'FLXM' (4)                          |  0
 *  +-------------------------------+-------------------------------+
 *  |     format version (2)        |          flags (2)            |  4
 *  +-------------------------------+-------------------------------+
 *  |                  topology version (8)                         |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     body length (4)                           | 16
 *  +---------------------------------------------------------------+
 *  |                  CRC32C of the body (4)                       | 20
 *  +---------------------------------------------------------------+
 *  |               body: protobuf Topology (length bytes)         ...  24
 * </pre>
 *
 * <p>The topology version is in the header too, so that a reader can cross-check it against the
 * body and report it without parsing. Flags are reserved and must be 0 in format version 1.
 */
public final class MetadataFileDescriptor {
  public static final int MAGIC = 0x464C_584D; // "FLXM"
  public static final short FORMAT_VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int FORMAT_VERSION_OFFSET = 4;
  public static final int FLAGS_OFFSET = 6;
  public static final int TOPOLOGY_VERSION_OFFSET = 8;
  public static final int BODY_LENGTH_OFFSET = 16;
  public static final int CRC_OFFSET = 20;
  public static final int HEADER_LENGTH = 24;

  /** Refuse bodies larger than this: a topology is kilobytes, not megabytes. */
  public static final int MAX_BODY_LENGTH = 64 << 20;

  private MetadataFileDescriptor() {}

  /** The whole file for a body and the topology version it encodes. */
  public static byte[] encode(long topologyVersion, byte[] body) {
    ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH + body.length).order(ByteOrder.BIG_ENDIAN);
    buf.putInt(MAGIC_OFFSET, MAGIC);
    buf.putShort(FORMAT_VERSION_OFFSET, FORMAT_VERSION);
    buf.putShort(FLAGS_OFFSET, (short) 0);
    buf.putLong(TOPOLOGY_VERSION_OFFSET, topologyVersion);
    buf.putInt(BODY_LENGTH_OFFSET, body.length);
    buf.putInt(CRC_OFFSET, crc(body, 0, body.length));
    buf.put(HEADER_LENGTH, body);
    return buf.array();
  }

  public static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }
}
