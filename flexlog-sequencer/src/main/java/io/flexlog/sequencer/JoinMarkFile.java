package io.flexlog.sequencer;

import io.flexlog.core.util.DurableFiles;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * The join marks of a sequencer node's hosted roles (docs/architecture.md#join-marks), kept in the
 * file {@code dataDir/join-marks} so that a restarted process repeats them to replicas that were
 * down when they were taken. Big-endian:
 *
 * <pre>
 *  | magic 'FLXJ' (4) | format version (2) | flags (2) | node id (4) | color count (4)       |
 *  | CRC32C of the body (4) | body: per color: | color id (4) | mark count (4) |             |
 *  |   per mark: | topology version (8) | mark SN (8) | joined shard count (4) | shard ids (4 each) |
 * </pre>
 *
 * <p>Durability: {@link #save} replaces the file with {@link DurableFiles} (temp file, fsync,
 * rename, directory fsync) and returns (a completed future) only then, so a crash leaves the old or
 * the new marks, never a torn file. {@link #open} only reads: a start that fails (another process
 * holds the node, a corrupt file) changes nothing. A corrupt file or another node's file stops the
 * start with a message naming the file; it is never silently reset, since a forgotten mark is the
 * failure this file exists to prevent.
 *
 * <p>Threading: {@link #save} and {@link #load} run on the node's event loop after {@link #open}.
 */
public final class JoinMarkFile implements JoinMarkStore {
  static final String FILE_NAME = "join-marks";
  static final int MAGIC = 0x464C_584A; // "FLXJ"
  static final short FORMAT_VERSION = 1;
  static final int HEADER_LENGTH = 20;

  private final Path file;
  private final int nodeId;
  private final Map<Integer, List<Mark>> marks;

  private JoinMarkFile(Path file, int nodeId, Map<Integer, List<Mark>> marks) {
    this.file = file;
    this.nodeId = nodeId;
    this.marks = marks;
  }

  /**
   * Reads the marks saved in {@code dataDir} (none when there is no file yet). Writes nothing.
   *
   * @throws IOException naming the file and what is wrong with it: unreadable, corrupt, or written
   *     by another node
   */
  public static JoinMarkFile open(Path dataDir, int nodeId) throws IOException {
    Path file = dataDir.resolve(FILE_NAME);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new JoinMarkFile(file, nodeId, new TreeMap<>());
    } catch (IOException e) {
      throw new IOException("cannot read join marks file " + file + ": " + e.getMessage(), e);
    }
    return new JoinMarkFile(file, nodeId, decode(file, nodeId, bytes));
  }

  @Override
  public List<Mark> load(int colorId) {
    return marks.getOrDefault(colorId, List.of());
  }

  /** A node without failover keeps its roles, so its file has every mark they saved. */
  @Override
  public boolean complete() {
    return true;
  }

  /** Writes the file before it returns: the future is already complete. */
  @Override
  public CompletableFuture<Void> save(int colorId, List<Mark> colorMarks) {
    marks.put(colorId, List.copyOf(colorMarks));
    try {
      DurableFiles.writeAtomically(file, encode(nodeId, marks));
      return CompletableFuture.completedFuture(null);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(
          new UncheckedIOException("cannot save join marks in " + file, e));
    }
  }

  static byte[] encode(int nodeId, Map<Integer, List<Mark>> marks) {
    int length = HEADER_LENGTH;
    for (List<Mark> list : marks.values()) {
      length += 8;
      for (Mark mark : list) {
        length += 20 + 4 * mark.joinedShardIds().size();
      }
    }
    ByteBuffer buf = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
    buf.putInt(MAGIC).putShort(FORMAT_VERSION).putShort((short) 0);
    buf.putInt(nodeId).putInt(marks.size()).putInt(0);
    for (Map.Entry<Integer, List<Mark>> e : new TreeMap<>(marks).entrySet()) {
      buf.putInt(e.getKey()).putInt(e.getValue().size());
      for (Mark mark : e.getValue()) {
        buf.putLong(mark.topologyVersion()).putLong(mark.sn());
        buf.putInt(mark.joinedShardIds().size());
        mark.joinedShardIds().forEach(buf::putInt);
      }
    }
    byte[] bytes = buf.array();
    buf.putInt(16, crc(bytes));
    return bytes;
  }

  static Map<Integer, List<Mark>> decode(Path file, int nodeId, byte[] bytes) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    if (bytes.length < HEADER_LENGTH || buf.getInt(0) != MAGIC) {
      throw corrupt(file, "not a FlexLog join marks file");
    }
    if (buf.getShort(4) != FORMAT_VERSION || buf.getShort(6) != 0) {
      throw corrupt(file, "format version " + buf.getShort(4) + " is not supported");
    }
    if (crc(bytes) != buf.getInt(16)) {
      throw corrupt(file, "checksum mismatch");
    }
    if (buf.getInt(8) != nodeId) {
      throw new IOException(
          "join marks file "
              + file
              + " belongs to sequencer node "
              + buf.getInt(8)
              + ", not to node "
              + nodeId
              + "; refusing to start on another node's data directory");
    }
    Map<Integer, List<Mark>> marks = new TreeMap<>();
    try {
      int colors = buf.getInt(12);
      buf.position(HEADER_LENGTH);
      for (int c = 0; c < colors; c++) {
        int colorId = buf.getInt();
        int count = buf.getInt();
        List<Mark> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          long version = buf.getLong();
          long sn = buf.getLong();
          int joined = buf.getInt();
          if (joined < 0 || joined > buf.remaining() / 4) {
            throw corrupt(file, "a mark of color " + colorId + " names " + joined + " shards");
          }
          List<Integer> ids = new ArrayList<>(joined);
          for (int j = 0; j < joined; j++) {
            ids.add(buf.getInt());
          }
          list.add(new Mark(version, sn, ids));
        }
        marks.put(colorId, List.copyOf(list));
      }
    } catch (java.nio.BufferUnderflowException e) {
      throw corrupt(file, "shorter than its marks");
    }
    if (buf.hasRemaining()) {
      throw corrupt(file, buf.remaining() + " bytes after its marks");
    }
    return marks;
  }

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, HEADER_LENGTH, bytes.length - HEADER_LENGTH);
    return (int) crc.getValue();
  }

  private static IOException corrupt(Path file, String problem) {
    return new IOException(
        "corrupt join marks file "
            + file
            + ": "
            + problem
            + "; refusing to start because a forgotten join mark can hide new shards from"
            + " subscribers (docs/architecture.md#join-marks); move it away to start without"
            + " the marks");
  }
}
