package io.flexlog.server.control.quorum;

import io.flexlog.core.model.Topology;
import io.flexlog.core.util.DurableFiles;
import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import io.flexlog.server.control.CorruptMetadataException;
import io.flexlog.server.control.MetadataFileDescriptor;
import io.flexlog.server.control.MetadataStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Layout of a snapshot of the metadata quorum's state machine: the topology (the whole {@code
 * cluster-metadata} file, {@link MetadataFileDescriptor}), the role leases and, from format version
 * 2, the roles' join marks. Big-endian.
 *
 * <pre>
 *  | magic 'FLXS' (4) | format version (2) | flags (2) | lease count (4) | topology length (4) |
 *  | CRC32C of the body (4) | body: topology file (topology length bytes), then per lease:    |
 *  | color id (4) | leader node id (4) | epoch (4) | renewals (8) |
 *  version 2 only, after the leases: | color count (4) | per color: | color id (4) |
 *  | marks ({@link JoinMarkCommand}) |
 * </pre>
 *
 * <p>Written in version 2; version 1 (no marks) is still read.
 */
final class MetadataSnapshot {
  static final int MAGIC = 0x464C_5853; // "FLXS"
  static final short FORMAT_VERSION = 2;
  static final short FORMAT_VERSION_WITHOUT_MARKS = 1;
  static final int HEADER_LENGTH = 20;
  static final int LEASE_LENGTH = 20;

  /** A loaded snapshot. */
  record State(
      Topology topology, Map<Integer, RoleLease> leases, Map<Integer, List<Mark>> joinMarks) {}

  private MetadataSnapshot() {}

  static void write(
      Path file,
      Topology topology,
      Map<Integer, RoleLease> leases,
      Map<Integer, List<Mark>> joinMarks)
      throws IOException {
    byte[] topologyFile = MetadataStore.encode(topology);
    int marksLength = 4;
    for (List<Mark> marks : joinMarks.values()) {
      marksLength += 4 + JoinMarkCommand.length(marks);
    }
    ByteBuffer buf =
        ByteBuffer.allocate(
                HEADER_LENGTH + topologyFile.length + leases.size() * LEASE_LENGTH + marksLength)
            .order(ByteOrder.BIG_ENDIAN);
    buf.putInt(MAGIC).putShort(FORMAT_VERSION).putShort((short) 0);
    buf.putInt(leases.size()).putInt(topologyFile.length).putInt(0);
    buf.put(topologyFile);
    for (RoleLease lease : new TreeMap<>(leases).values()) {
      buf.putInt(lease.colorId()).putInt(lease.leaderNodeId()).putInt(lease.epoch());
      buf.putLong(lease.renewals());
    }
    buf.putInt(joinMarks.size());
    for (Map.Entry<Integer, List<Mark>> e : new TreeMap<>(joinMarks).entrySet()) {
      buf.putInt(e.getKey());
      JoinMarkCommand.put(buf, e.getValue());
    }
    byte[] bytes = buf.array();
    int crc = MetadataFileDescriptor.crc(bytes, HEADER_LENGTH, bytes.length - HEADER_LENGTH);
    ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).putInt(16, crc);
    DurableFiles.writeAtomically(file, bytes);
  }

  /**
   * @throws CorruptMetadataException naming the file and what is wrong with it
   */
  static State read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    if (bytes.length < HEADER_LENGTH || buf.getInt(0) != MAGIC) {
      throw new CorruptMetadataException(file, "not a FlexLog metadata snapshot");
    }
    short format = buf.getShort(4);
    if ((format != FORMAT_VERSION && format != FORMAT_VERSION_WITHOUT_MARKS)
        || buf.getShort(6) != 0) {
      throw new CorruptMetadataException(
          file, "snapshot format version " + buf.getShort(4) + " is not supported");
    }
    int leaseCount = buf.getInt(8);
    int topologyLength = buf.getInt(12);
    if (leaseCount < 0
        || topologyLength < 0
        || (long) HEADER_LENGTH + topologyLength + (long) leaseCount * LEASE_LENGTH > bytes.length
        || (format == FORMAT_VERSION_WITHOUT_MARKS
            && (long) HEADER_LENGTH + topologyLength + (long) leaseCount * LEASE_LENGTH
                != bytes.length)) {
      throw new CorruptMetadataException(file, "snapshot lengths do not match its size");
    }
    int crc = MetadataFileDescriptor.crc(bytes, HEADER_LENGTH, bytes.length - HEADER_LENGTH);
    if (crc != buf.getInt(16)) {
      throw new CorruptMetadataException(file, "snapshot checksum mismatch");
    }
    Topology topology =
        MetadataStore.decode(
            file,
            java.util.Arrays.copyOfRange(bytes, HEADER_LENGTH, HEADER_LENGTH + topologyLength));
    Map<Integer, RoleLease> leases = new TreeMap<>();
    buf.position(HEADER_LENGTH + topologyLength);
    for (int i = 0; i < leaseCount; i++) {
      RoleLease lease = new RoleLease(buf.getInt(), buf.getInt(), buf.getInt(), buf.getLong());
      leases.put(lease.colorId(), lease);
    }
    Map<Integer, List<Mark>> joinMarks = new TreeMap<>();
    if (format == FORMAT_VERSION) {
      try {
        int colors = buf.getInt();
        for (int i = 0; i < colors; i++) {
          int colorId = buf.getInt();
          joinMarks.put(colorId, JoinMarkCommand.get(buf, "snapshot " + file));
        }
      } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
        throw new CorruptMetadataException(
            file, "snapshot join marks cut short: " + e.getMessage());
      }
      if (buf.hasRemaining()) {
        throw new CorruptMetadataException(file, "snapshot lengths do not match its size");
      }
    }
    return new State(topology, Map.copyOf(leases), Map.copyOf(joinMarks));
  }
}
