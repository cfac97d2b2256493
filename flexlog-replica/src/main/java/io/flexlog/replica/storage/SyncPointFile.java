package io.flexlog.replica.storage;

import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SyncPointStore} of a replica node: the file {@value #FILE_NAME} in its data directory
 * (docs/operations.md#data-directories), replaced crash-safely by {@link DurableFiles} on a writer
 * thread of its own, so the replica's event loop never waits for the disk.
 *
 * <p>Layout (little-endian): magic {@code FLXLSYNC}, version 1, node id, the durability mode and
 * the machine's boot id at the time of writing (each a 16-bit length and ASCII), the time of
 * writing (epoch ms), the entry count, per entry shard id, color id, sync point, trim point, held
 * count, last held SN, mark count and the marks ({@code version, SN} pairs), then a CRC32C of
 * everything before it.
 *
 * <p>{@link #load} trusts nothing it cannot check: a missing, short, damaged (magic, version, CRC,
 * structure) or foreign (another node id) file yields an empty table with a logged warning, so the
 * replica starts blind from epoch 1 as if it had no file. A file written in durability {@code
 * process} during an earlier boot of the machine keeps its join marks but loses its sync points:
 * that mode survives a crash of the process, not of the machine, so the log may have lost entries
 * the points speak of. Loading never writes; the first {@link #save} after start replaces the file.
 */
public final class SyncPointFile implements SyncPointStore {
  private static final Logger LOG = LoggerFactory.getLogger(SyncPointFile.class);

  /** The file's name in the data directory. */
  public static final String FILE_NAME = "sync-points";

  static final long MAGIC = 0x434e_5953_4c58_4c46L; // "FLXLSYNC", little-endian
  static final int VERSION = 1;

  private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

  private final Path file;
  private final int nodeId;
  private final DurabilityMode durability;
  private final Supplier<String> bootId;
  private final DurableFiles.FileOps ops;
  private final AtomicReference<SyncPointTable> unwritten = new AtomicReference<>();
  private final ExecutorService writer;
  private boolean warnedWriteFailure;

  /**
   * The file in {@code dataDir} of replica {@code nodeId}, whose log runs in {@code durability}.
   */
  public SyncPointFile(Path dataDir, int nodeId, DurabilityMode durability) {
    this(dataDir, nodeId, durability, SyncPointFile::machineBootId, DurableFiles.REAL);
  }

  /** With the boot id and the file-system steps given, for tests. */
  public SyncPointFile(
      Path dataDir,
      int nodeId,
      DurabilityMode durability,
      Supplier<String> bootId,
      DurableFiles.FileOps ops) {
    this.file = dataDir.resolve(FILE_NAME);
    this.nodeId = nodeId;
    this.durability = durability;
    this.bootId = bootId;
    this.ops = ops;
    this.writer =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-sync-points-" + nodeId);
              t.setDaemon(true);
              return t;
            });
  }

  public Path path() {
    return file;
  }

  /** The machine's boot id (Linux), or "" where there is none. */
  static String machineBootId() {
    try {
      return Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  @Override
  public SyncPointTable load() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      LOG.info(
          "replica {}: no {}: blind from epoch 1, the first sync phase asks the peers for every"
              + " record of each color",
          nodeId,
          file);
      return SyncPointTable.empty(nodeId);
    } catch (IOException e) {
      return untrusted("cannot be read (" + e + ")");
    }
    Decoded decoded;
    try {
      decoded = decode(bytes);
    } catch (DamagedException e) {
      return untrusted("is damaged: " + e.getMessage());
    }
    if (decoded.table.nodeId() != nodeId) {
      return untrusted("belongs to replica node " + decoded.table.nodeId());
    }
    String now = bootId.get();
    if (decoded.durability == DurabilityMode.PROCESS
        && (now.isEmpty() || !now.equals(decoded.bootId))) {
      LOG.warn(
          "replica {}: {} was written in durability=process {} (boot id '{}', now '{}'): the log"
              + " may have lost entries its sync points cover, so they are dropped (blind from"
              + " epoch 1); its join marks are kept",
          nodeId,
          file,
          now.isEmpty() ? "and this machine has no boot id" : "before the machine restarted",
          decoded.bootId,
          now);
      return decoded.table.withoutPoints();
    }
    LOG.info(
        "replica {}: loaded {} logs' sync points and join marks from {} (written {})",
        nodeId,
        decoded.table.entries().size(),
        file,
        Instant.ofEpochMilli(decoded.writtenAtMillis));
    return decoded.table;
  }

  private SyncPointTable untrusted(String why) {
    LOG.warn(
        "replica {}: {} {}; ignoring it: blind from epoch 1, the first sync phase asks the peers"
            + " for every record of each color (the next save replaces the file)",
        nodeId,
        file,
        why);
    return SyncPointTable.empty(nodeId);
  }

  @Override
  public void save(SyncPointTable table) {
    if (writer.isShutdown()) {
      return; // closed: the replica has stopped
    }
    if (unwritten.getAndSet(table) == null) {
      writer.execute(this::writeUnwritten);
    }
  }

  private void writeUnwritten() {
    SyncPointTable table = unwritten.getAndSet(null);
    if (table == null) {
      return;
    }
    try {
      DurableFiles.writeAtomically(file, encode(table, durability, bootId.get()), ops);
      warnedWriteFailure = false;
    } catch (IOException | RuntimeException e) {
      // The previous file stays: an older table claims less, never more.
      if (!warnedWriteFailure) {
        warnedWriteFailure = true;
        LOG.warn("replica {}: cannot write {}; keeping the previous one", nodeId, file, e);
      }
    }
  }

  @Override
  public void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("replica {}: {} not written within 10 s of closing", nodeId, file);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- layout

  static byte[] encode(SyncPointTable table, DurabilityMode durability, String bootId) {
    byte[] mode = durability.configName().getBytes(StandardCharsets.US_ASCII);
    byte[] boot = bootId.getBytes(StandardCharsets.US_ASCII);
    int size = 8 + 4 + 4 + 2 + mode.length + 2 + boot.length + 8 + 4 + 4;
    for (SyncPointTable.Entry e : table.entries()) {
      size += 4 + 4 + 8 * 4 + 4 + 16 * e.markCount();
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(MAGIC).putInt(VERSION).putInt(table.nodeId());
    out.putShort((short) mode.length).put(mode);
    out.putShort((short) boot.length).put(boot);
    out.putLong(System.currentTimeMillis());
    out.putInt(table.entries().size());
    for (SyncPointTable.Entry e : table.entries()) {
      out.putInt(e.shardId()).putInt(e.colorId());
      out.putLong(e.syncPoint()).putLong(e.trimPoint()).putLong(e.heldCount());
      out.putLong(e.lastHeldSn());
      out.putInt(e.markCount());
      for (int i = 0; i < e.markCount(); i++) {
        out.putLong(e.markVersion(i)).putLong(e.markSn(i));
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    return out.array();
  }

  record Decoded(
      SyncPointTable table, DurabilityMode durability, String bootId, long writtenAtMillis) {}

  static Decoded decode(byte[] bytes) throws DamagedException {
    if (bytes.length < 8 + 4 + 4) {
      throw new DamagedException("only " + bytes.length + " bytes");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (in.getLong() != MAGIC) {
      throw new DamagedException("no FLXLSYNC magic");
    }
    int version = in.getInt();
    if (version != VERSION) {
      throw new DamagedException("layout version " + version + ", expected " + VERSION);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    int stored =
        ByteBuffer.wrap(bytes, bytes.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    if ((int) crc.getValue() != stored) {
      throw new DamagedException("CRC32C mismatch (torn or corrupt)");
    }
    try {
      int nodeId = in.getInt();
      DurabilityMode mode = DurabilityMode.parse(ascii(in));
      String boot = ascii(in);
      long writtenAt = in.getLong();
      int count = in.getInt();
      if (count < 0 || count > (bytes.length - in.position()) / 44) {
        throw new DamagedException("entry count " + count + " does not fit the file");
      }
      List<SyncPointTable.Entry> entries = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int shard = in.getInt();
        int color = in.getInt();
        long point = in.getLong();
        long trim = in.getLong();
        long held = in.getLong();
        long last = in.getLong();
        int marks = in.getInt();
        if (marks < 0 || marks > (bytes.length - in.position()) / 16) {
          throw new DamagedException("mark count " + marks + " does not fit the file");
        }
        long[] pairs = new long[2 * marks];
        for (int m = 0; m < pairs.length; m++) {
          pairs[m] = in.getLong();
        }
        if (point < 0 || held < 0 || last > point || (held == 0) != (last == 0)) {
          throw new DamagedException("inconsistent entry for shard " + shard + " color " + color);
        }
        entries.add(new SyncPointTable.Entry(shard, color, point, trim, held, last, pairs));
      }
      if (in.remaining() != 4) {
        throw new DamagedException(in.remaining() - 4 + " bytes after the last entry");
      }
      return new Decoded(new SyncPointTable(nodeId, entries), mode, boot, writtenAt);
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw new DamagedException("truncated or malformed (" + e + ")");
    }
  }

  private static String ascii(ByteBuffer in) {
    int length = Short.toUnsignedInt(in.getShort());
    byte[] b = new byte[length];
    in.get(b);
    return new String(b, StandardCharsets.US_ASCII);
  }

  /** The file's content cannot be trusted. */
  static final class DamagedException extends Exception {
    private static final long serialVersionUID = 1L;

    DamagedException(String message) {
      super(message);
    }
  }
}
