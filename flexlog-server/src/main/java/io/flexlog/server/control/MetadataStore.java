package io.flexlog.server.control;

import com.google.protobuf.InvalidProtocolBufferException;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Topology;
import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The durable cluster metadata of a node's data directory: the latest topology, in the file {@value
 * #FILE_NAME} (layout: {@link MetadataFileDescriptor}). On the sequencer node hosting the root
 * color it is the cluster's source of truth; on every other node it is a cache of the latest
 * topology the node applied, so that a restarted node recovers the shards it was given after its
 * cluster file was written.
 *
 * <p>Durability: {@link #write} writes {@value #TEMP_NAME}, fsyncs it, atomically renames it over
 * {@value #FILE_NAME} and fsyncs the directory before it returns ({@link DurableFiles}). A crash at
 * any point leaves the old or the new file, never a torn one; a leftover temp file is ignored. A
 * file that fails its checks is refused with {@link CorruptMetadataException}, never silently
 * replaced.
 *
 * <p>Threading: not thread-safe; callers serialize writes (the {@link ClusterController} lock or a
 * node's watcher thread).
 */
public final class MetadataStore {
  public static final String FILE_NAME = "cluster-metadata";
  static final String TEMP_NAME = "cluster-metadata.tmp";

  private final Path dir;
  private final Path file;
  private final DurableFiles.FileOps ops;

  public MetadataStore(Path dataDir) {
    this(dataDir, DurableFiles.REAL);
  }

  /** A store whose writes go through {@code ops}, which tests replace to fabricate crashes. */
  MetadataStore(Path dataDir, DurableFiles.FileOps ops) {
    this(dataDir, dataDir.resolve(FILE_NAME), ops);
  }

  private MetadataStore(Path dir, Path file, DurableFiles.FileOps ops) {
    this.dir = dir;
    this.file = file;
    this.ops = ops;
  }

  /**
   * A store of the same layout in a file of another name, e.g. a snapshot of the metadata quorum's
   * state machine (docs/architecture.md, "Metadata quorum").
   */
  public static MetadataStore ofFile(Path file) {
    return new MetadataStore(file.toAbsolutePath().getParent(), file, DurableFiles.REAL);
  }

  public Path file() {
    return file;
  }

  /**
   * The stored topology, or empty when the directory has none yet.
   *
   * @throws CorruptMetadataException naming the file and what is wrong with it
   * @throws IOException when the file cannot be read
   */
  public Optional<Topology> load() throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    return Optional.of(decode(file, bytes));
  }

  /**
   * The topology in {@code bytes}, laid out as a {@value #FILE_NAME} file.
   *
   * @param file named in the error when the bytes fail their checks
   * @throws CorruptMetadataException naming {@code file} and what is wrong
   */
  public static Topology decode(Path file, byte[] bytes) throws CorruptMetadataException {
    if (bytes.length < MetadataFileDescriptor.HEADER_LENGTH) {
      throw new CorruptMetadataException(
          file,
          "truncated: "
              + bytes.length
              + " bytes, shorter than the "
              + MetadataFileDescriptor.HEADER_LENGTH
              + "-byte header");
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    int magic = buf.getInt(MetadataFileDescriptor.MAGIC_OFFSET);
    if (magic != MetadataFileDescriptor.MAGIC) {
      throw new CorruptMetadataException(
          file, String.format("bad magic 0x%08x, not a FlexLog cluster metadata file", magic));
    }
    short format = buf.getShort(MetadataFileDescriptor.FORMAT_VERSION_OFFSET);
    if (format != MetadataFileDescriptor.FORMAT_VERSION) {
      throw new CorruptMetadataException(
          file,
          "format version "
              + format
              + " is not supported (this FlexLog reads version "
              + MetadataFileDescriptor.FORMAT_VERSION
              + ")");
    }
    short flags = buf.getShort(MetadataFileDescriptor.FLAGS_OFFSET);
    if (flags != 0) {
      throw new CorruptMetadataException(
          file, "unknown flags 0x" + Integer.toHexString(flags & 0xFFFF));
    }
    long headerVersion = buf.getLong(MetadataFileDescriptor.TOPOLOGY_VERSION_OFFSET);
    int length = buf.getInt(MetadataFileDescriptor.BODY_LENGTH_OFFSET);
    if (length < 0 || length > MetadataFileDescriptor.MAX_BODY_LENGTH) {
      throw new CorruptMetadataException(file, "bad body length " + length);
    }
    int actual = bytes.length - MetadataFileDescriptor.HEADER_LENGTH;
    if (actual != length) {
      throw new CorruptMetadataException(
          file,
          (actual < length ? "truncated" : "trailing bytes")
              + ": header says "
              + length
              + " body bytes, file has "
              + actual);
    }
    int crc = buf.getInt(MetadataFileDescriptor.CRC_OFFSET);
    int computed = MetadataFileDescriptor.crc(bytes, MetadataFileDescriptor.HEADER_LENGTH, length);
    if (crc != computed) {
      throw new CorruptMetadataException(
          file, String.format("checksum mismatch (stored 0x%08x, computed 0x%08x)", crc, computed));
    }
    Topology topology;
    try {
      topology =
          TopologyProtos.fromProto(
              io.flexlog.admin.v1.Topology.parseFrom(
                  ByteBuffer.wrap(bytes, MetadataFileDescriptor.HEADER_LENGTH, length)));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptMetadataException(file, "body is not a topology message: " + e.getMessage());
    } catch (InvalidArgumentException e) {
      throw new CorruptMetadataException(file, e.getMessage());
    }
    if (topology.version() != headerVersion) {
      throw new CorruptMetadataException(
          file,
          "header says topology version " + headerVersion + ", body says " + topology.version());
    }
    return topology;
  }

  /** The bytes of a {@value #FILE_NAME} file holding {@code topology}. */
  public static byte[] encode(Topology topology) {
    return MetadataFileDescriptor.encode(
        topology.version(), TopologyProtos.toProto(topology).toByteArray());
  }

  /**
   * Durably replaces the stored topology. When it returns, a crash or restart at any later point
   * loads {@code topology}.
   *
   * @throws IOException when the directory or file cannot be written; the stored topology is then
   *     the old one
   */
  public void write(Topology topology) throws IOException {
    Files.createDirectories(dir);
    DurableFiles.writeAtomically(file, encode(topology), ops);
  }
}
