package io.flexlog.replica.storage.pm;

import io.flexlog.core.util.DurableFiles;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.chunk.ByteBufChunkMemory;
import io.flexlog.replica.storage.chunk.ChunkMemory;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
import io.flexlog.replica.storage.chunk.RangeFlusher;
import io.flexlog.replica.storage.chunk.TrimTableDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pure-Java log storage for machines without libpmemobj: each chunk is a file {@code
 * <dir>/chunk-NNNNNN.log} of the chunk size, mapped read-write with {@link FileChannel#map}, and
 * the trim points live in {@code <dir>/trim-points.tbl} ({@link TrimTableDescriptor}). Same layout
 * and recovery as {@link LlplLogStorage} (both extend {@link ChunkedLogStorage}).
 *
 * <p>Durability:
 *
 * <ul>
 *   <li>{@code process}: no sync; the page cache keeps written bytes when the process dies.
 *   <li>{@code fsync}: {@link MappedByteBuffer#force(int, int)} of exactly the flushed ranges.
 *   <li>{@code pmem}: rejected; this engine never reaches a persistence domain.
 * </ul>
 *
 * <p>Payload views ({@link #payload}) share the mapping. Mappings are released by the garbage
 * collector, not by {@link #close()}, so a view used after close still reads valid (if stale)
 * memory instead of crashing the JVM; the contract still forbids it.
 */
public final class MappedFileLogStorage extends ChunkedLogStorage {
  public static final String ENGINE_NAME = "mapped";
  public static final String TRIM_FILE = "trim-points.tbl";
  private static final Logger LOG = LoggerFactory.getLogger(MappedFileLogStorage.class);
  private static final int PAGE = 4096;

  private final MappedByteBuffer[] mappings;

  private MappedFileLogStorage(
      DurabilityMode mode,
      MappedByteBuffer[] mappings,
      int chunkBytes,
      int existingChunks,
      MappedByteBuffer trimMapping,
      boolean newTrimTable,
      Path trimFile) {
    super(mode);
    this.mappings = mappings;
    ChunkMemory[] chunks = new ChunkMemory[mappings.length];
    for (int i = 0; i < mappings.length; i++) {
      chunks[i] = new ByteBufChunkMemory(mappings[i], flusher(mode, mappings[i]));
    }
    for (int i = existingChunks; i < chunks.length; i++) {
      formatChunk(chunks[i], i, chunkBytes);
    }
    ChunkMemory trimRegion = new ByteBufChunkMemory(trimMapping, flusher(mode, trimMapping));
    // A crash right after creating the file leaves it all zeros: no trim was ever recorded in it.
    if (newTrimTable || trimRegion.getLong(TrimTableDescriptor.MAGIC_OFFSET) == 0) {
      formatTrimTable(trimRegion);
    }
    // msync works on pages: SN words within a page cost nothing extra to flush together.
    attach(chunks, chunkBytes, PAGE, existingChunks == 0, trimRegion, trimFile.toString());
  }

  private static RangeFlusher flusher(DurabilityMode mode, MappedByteBuffer mapping) {
    return mode == DurabilityMode.FSYNC ? mapping::force : RangeFlusher.NONE;
  }

  /**
   * Opens the log in {@code dir}, creating {@code capacityBytes / chunkBytes} chunk files if there
   * are none. An existing log keeps its chunks; if the capacity asks for more, new chunks are
   * added. Call {@link #recover} before appending to an existing log.
   *
   * @throws StorageException for {@code pmem} durability, bad sizes, or I/O failures
   */
  public static MappedFileLogStorage open(
      Path dir, long capacityBytes, long chunkBytes, DurabilityMode mode) {
    if (mode == DurabilityMode.PMEM) {
      throw new StorageException(
          "the mapped engine cannot provide pmem durability (no persistence domain through a file"
              + " mapping): use the llpl engine on a PM/DAX mount, or durability fsync or process");
    }
    validateChunkSize(chunkBytes);
    long requested = capacityBytes / chunkBytes;
    if (requested < 1 || requested > MAX_CHUNKS) {
      throw new StorageException(
          "capacity "
              + capacityBytes
              + " must hold between 1 and "
              + MAX_CHUNKS
              + " chunks of "
              + chunkBytes
              + " bytes");
    }
    try {
      Files.createDirectories(dir);
      int existing = 0;
      while (Files.exists(chunkFile(dir, existing))) {
        existing++;
      }
      int count = (int) Math.max(requested, existing);
      if (existing > requested) {
        LOG.warn(
            "{} holds {} chunks, more than the configured capacity ({}); keeping all of them",
            dir,
            existing,
            requested);
      }
      MappedByteBuffer[] mappings = new MappedByteBuffer[count];
      for (int i = 0; i < count; i++) {
        mappings[i] = map(chunkFile(dir, i), chunkBytes, i >= existing);
      }
      Path trimFile = dir.resolve(TRIM_FILE);
      boolean newTrimTable = !Files.exists(trimFile);
      MappedByteBuffer trimMapping =
          map(trimFile, TrimTableDescriptor.LENGTH, newTrimTable, "the trim table length");
      if (mode == DurabilityMode.FSYNC && (count > existing || newTrimTable)) {
        DurableFiles.syncDirectory(dir); // new files must survive a machine crash too
      }
      return new MappedFileLogStorage(
          mode, mappings, (int) chunkBytes, existing, trimMapping, newTrimTable, trimFile);
    } catch (IOException | UncheckedIOException e) {
      throw new StorageException("cannot open mapped log in " + dir + ": " + e.getMessage(), e);
    }
  }

  static Path chunkFile(Path dir, int index) {
    return dir.resolve(String.format(Locale.ROOT, "chunk-%06d.log", index));
  }

  private static MappedByteBuffer map(Path file, long chunkBytes, boolean create)
      throws IOException {
    return map(file, chunkBytes, create, "the configured chunk size");
  }

  /** Maps {@code file} of exactly {@code bytes}, creating it (sparse) when asked. */
  private static MappedByteBuffer map(Path file, long bytes, boolean create, String expected)
      throws IOException {
    try (FileChannel channel =
        create
            ? FileChannel.open(
                file,
                StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE)
            : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = channel.size();
      if (create) {
        channel.truncate(bytes);
        channel.position(bytes - 1);
        channel.write(java.nio.ByteBuffer.wrap(new byte[1])); // sparse file of that size
      } else if (size != bytes) {
        throw new StorageException(
            file + " is " + size + " bytes, expected " + expected + " " + bytes);
      }
      // The mapping outlives the channel.
      return channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
    }
  }

  @Override
  public String engineName() {
    return ENGINE_NAME;
  }

  @Override
  protected void release() {
    // Nothing to close: the channels are closed already and unmapping is left to the collector.
    // A forced unmap would turn a late read of a payload view into a JVM crash.
    for (int i = 0; i < mappings.length; i++) {
      mappings[i] = null;
    }
  }
}
