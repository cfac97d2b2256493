package io.flexlog.replica.storage.pm;

import com.intel.pmem.llpl.AnyHeap;
import com.intel.pmem.llpl.Heap;
import com.intel.pmem.llpl.HeapException;
import com.intel.pmem.llpl.MemoryAccessor;
import com.intel.pmem.llpl.MemoryBlock;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.chunk.ByteBufChunkMemory;
import io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor;
import io.flexlog.replica.storage.chunk.ChunkMemory;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
import io.flexlog.replica.storage.chunk.RangeFlusher;
import io.flexlog.replica.storage.chunk.TrimTableDescriptor;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log storage in persistent memory through llpl ({@code com.intel.pmem:llpl}, which needs
 * libpmemobj). One heap file {@code <dir>/pm.heap}; its root block is the chunk table followed by
 * the trim table ({@link ChunkTableDescriptor}); every chunk is one {@link MemoryBlock} allocated
 * when the heap is created, so appends never allocate from llpl, and chunks are reused, never freed
 * to llpl.
 *
 * <p>Payload copy: the raw address of each chunk is read once from llpl (a package-private method,
 * reached by reflection: FlexLog runs on the class path, so {@code setAccessible} works) and
 * wrapped in a Netty buffer: the payload is copied once from the caller's buffer into PM, and
 * {@link #payload} returns views of PM. If the address cannot be obtained, the engine logs it once
 * and goes through llpl's array accessors instead (one extra copy each way).
 *
 * <p>Durability. llpl's {@code MemoryBlock.flush} is libpmem's {@code pmem_persist}: it flushes CPU
 * cache lines and never calls {@code msync}, whatever the file is. libpmemobj's own metadata
 * (allocations, the root) is persisted according to {@code PMEM_IS_PMEM_FORCE}, read once per
 * process: with {@code 1} it is cache-flushed only, otherwise msync'ed on a plain file.
 *
 * <ul>
 *   <li>{@code process} requires {@code PMEM_IS_PMEM_FORCE=1}: entries are stored into the shared
 *       file mapping, which survives a crash of the process, not of the machine. They are not
 *       cache-flushed: a process crash loses no store the CPU executed. The launcher and the test
 *       build set it.
 *   <li>{@code fsync} requires that it is not {@code 1}. Each chunk's range of the heap file is
 *       mapped a second time and flushed ranges are {@code msync}'ed through that mapping, so the
 *       entries survive a machine crash on any file system.
 *   <li>{@code pmem} requires that it is not {@code 1} and that the heap is on a DAX mount (real
 *       PM), where the cache flush reaches the persistence domain; elsewhere opening fails rather
 *       than silently giving {@code process} durability.
 * </ul>
 *
 * <p>llpl keeps open heaps in a static map and has no public close; {@link #close()} calls its
 * package-private close by reflection so the same path can be opened again in this JVM. Payload
 * views are invalid after close (the memory is unmapped: touching them can crash the JVM).
 */
public final class LlplLogStorage extends ChunkedLogStorage {
  public static final String ENGINE_NAME = "llpl";
  public static final String HEAP_FILE = "pm.heap";
  public static final String PMEM_FORCE_ENV = "PMEM_IS_PMEM_FORCE";

  private static final Logger LOG = LoggerFactory.getLogger(LlplLogStorage.class);
  // Cache-line flushes: merging SN words more than a few lines apart only adds work. msync works
  // on pages: SN words within a page cost nothing extra to flush together.
  private static final int CACHE_LINE_COALESCE_GAP_BYTES = 256;
  private static final int PAGE_COALESCE_GAP_BYTES = 4096;
  private static final String AVAILABILITY = probe();

  /**
   * Bytes of each chunk's footprint that llpl and libpmemobj use themselves (allocation header and
   * block size word, rounded up). Asking for {@code chunkBytes - 64} keeps a chunk inside whole 256
   * KiB libpmemobj units: asking for exactly 1 MiB would occupy 1.25 MiB.
   */
  static final int BLOCK_OVERHEAD_BYTES = 64;

  private static final long TABLE_MIN_BYTES = 256 * 1024;

  private final Heap heap;

  private LlplLogStorage(
      DurabilityMode mode,
      String heapFile,
      Heap heap,
      MemoryBlock table,
      MemoryBlock[] blocks,
      int chunkBytes,
      boolean fresh,
      boolean directViews) {
    super(mode);
    this.heap = heap;
    ChunkMemory[] chunks = new ChunkMemory[blocks.length];
    boolean direct =
        directViews && DirectAddress.REASON == null && NativeMemory.unavailableReason() == null;
    if (directViews && !direct) {
      LOG.warn(
          "llpl chunks without direct views ({}): payloads are copied through arrays",
          DirectAddress.REASON != null ? DirectAddress.REASON : NativeMemory.unavailableReason());
    }
    boolean msync = mode == DurabilityMode.FSYNC;
    for (int i = 0; i < blocks.length; i++) {
      MemoryBlock block = blocks[i];
      MappedByteBuffer syncRegion =
          msync ? mapForMsync(heapFile, DirectAddress.fileOffset(block), chunkBytes) : null;
      RangeFlusher flusher =
          syncRegion != null ? syncRegion::force : cacheFlusher(mode, block::flush);
      chunks[i] =
          direct
              ? new ByteBufChunkMemory(
                  NativeMemory.wrap(DirectAddress.of(block), chunkBytes), flusher)
              : new LlplAccessorChunkMemory(block, chunkBytes, flusher);
      if (fresh) {
        formatChunk(chunks[i], i, chunkBytes);
      }
      if (syncRegion != null
          && syncRegion.getLong(0) != Long.reverseBytes(ChunkHeaderDescriptor.MAGIC)) {
        closeHeap(heap);
        throw new StorageException(
            "cannot locate chunk "
                + i
                + " inside "
                + heapFile
                + " to msync it: fsync durability is unavailable for this heap");
      }
    }
    ChunkMemory trimRegion = trimRegion(heapFile, table, direct, msync, mode);
    if (fresh) {
      formatTrimTable(trimRegion);
    }
    int gap = msync ? PAGE_COALESCE_GAP_BYTES : CACHE_LINE_COALESCE_GAP_BYTES;
    attach(chunks, chunkBytes, gap, fresh, trimRegion, "trim table of " + heapFile);
  }

  /** The trim table inside the root block, flushed like the chunks. */
  private static ChunkMemory trimRegion(
      String heapFile, MemoryBlock table, boolean direct, boolean msync, DurabilityMode mode) {
    long offset = table.getLong(ChunkTableDescriptor.TRIM_TABLE_OFFSET_OFFSET);
    int length = TrimTableDescriptor.LENGTH;
    RangeFlusher flusher;
    if (msync) {
      MappedByteBuffer region =
          mapForMsync(heapFile, DirectAddress.fileOffset(table) + offset, length);
      flusher = region::force;
    } else {
      flusher = cacheFlusher(mode, (at, bytes) -> table.flush(offset + at, bytes));
    }
    return direct
        ? new ByteBufChunkMemory(
            NativeMemory.wrap(DirectAddress.of(table) + offset, length), flusher)
        : new LlplAccessorChunkMemory(table, offset, length, flusher);
  }

  /**
   * llpl's cache-line flush where the mode needs it ({@code pmem}); none in {@code process}: the
   * CPU caches are coherent with the shared mapping, so a store is in the file's pages for the next
   * process as soon as it is executed, and x86 keeps stores in program order for it. Flushing the
   * lines only evicted them and cost a replica about 3% of its CPU on the append path
   * (docs/architecture.md#storage).
   */
  private static RangeFlusher cacheFlusher(DurabilityMode mode, RangeFlusher flush) {
    return mode == DurabilityMode.PROCESS ? RangeFlusher.NONE : flush;
  }

  /**
   * Maps a range of the heap file a second time, for {@code fsync}. Why: llpl's {@code flush} is
   * libpmem's {@code pmem_persist}, a CPU cache flush that never calls {@code msync}, so on a plain
   * file it would give only process durability. {@code msync} of another shared mapping of the same
   * file range writes back the same page-cache pages. A block's file offset is its llpl handle (the
   * offset in the pool, which starts the file) plus llpl's block metadata.
   */
  private static MappedByteBuffer mapForMsync(String heapFile, long fileOffset, int length) {
    try (FileChannel channel =
        FileChannel.open(Path.of(heapFile), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      return channel.map(FileChannel.MapMode.READ_WRITE, fileOffset, length);
    } catch (IOException e) {
      throw new StorageException("cannot map " + heapFile + " for msync: " + e.getMessage(), e);
    }
  }

  /** True when libpmemobj and llpl's native library load on this machine. */
  public static boolean isAvailable() {
    return AVAILABILITY == null;
  }

  /** Why {@link #isAvailable()} is false, or null when it is true. */
  public static String unavailableReason() {
    return AVAILABILITY;
  }

  /**
   * Opens {@code <dir>/pm.heap}, creating a heap of {@code capacityBytes} with as many chunks of
   * {@code chunkBytes} as fit (llpl's own metadata takes a few percent) if it does not exist. An
   * existing heap keeps its size and chunks; its chunk size must match. Call {@link #recover}
   * before appending to an existing heap.
   *
   * @throws StorageException when llpl is unavailable, the environment contradicts {@code mode},
   *     sizes are invalid, or the heap is not a FlexLog heap
   */
  public static LlplLogStorage open(
      Path dir, long capacityBytes, long chunkBytes, DurabilityMode mode) {
    return open(dir, capacityBytes, chunkBytes, mode, true, System.getenv(PMEM_FORCE_ENV));
  }

  /**
   * As {@link #open(Path, long, long, DurabilityMode)}; {@code directViews == false} forces the
   * array-copy fallback so tests cover it on machines where the direct path works, and {@code
   * pmemForce} stands in for the environment variable.
   */
  static LlplLogStorage open(
      Path dir,
      long capacityBytes,
      long chunkBytes,
      DurabilityMode mode,
      boolean directViews,
      String pmemForce) {
    if (!isAvailable()) {
      throw new StorageException("llpl engine unavailable: " + AVAILABILITY);
    }
    checkEnvironment(mode, pmemForce);
    if (mode == DurabilityMode.PMEM) {
      checkDaxMount(dir, readMounts());
    }
    validateChunkSize(chunkBytes);
    if (capacityBytes < Heap.MINIMUM_HEAP_SIZE) {
      throw new StorageException(
          "llpl heap capacity "
              + capacityBytes
              + " is below llpl's minimum heap size "
              + Heap.MINIMUM_HEAP_SIZE);
    }
    if (capacityBytes < chunkBytes) {
      throw new StorageException(
          "capacity " + capacityBytes + " is smaller than one chunk of " + chunkBytes + " bytes");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StorageException("cannot create " + dir + ": " + e.getMessage(), e);
    }
    String path = dir.resolve(HEAP_FILE).toString();
    try {
      return Heap.exists(path)
          ? openExisting(path, chunkBytes, mode, directViews)
          : create(path, capacityBytes, (int) chunkBytes, mode, directViews);
    } catch (HeapException e) {
      throw new StorageException("llpl heap " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Rejects a durability mode that libpmem would not honour given {@code PMEM_IS_PMEM_FORCE}.
   *
   * @param pmemForce the variable's value, null when unset
   */
  static void checkEnvironment(DurabilityMode mode, String pmemForce) {
    boolean forced = "1".equals(pmemForce);
    if (mode == DurabilityMode.PROCESS && !forced) {
      throw new StorageException(
          "durability process on the llpl engine requires the environment variable "
              + PMEM_FORCE_ENV
              + "=1 (found "
              + (pmemForce == null ? "unset" : "'" + pmemForce + "'")
              + "); the flexlog launcher sets it");
    }
    if (mode != DurabilityMode.PROCESS && forced) {
      throw new StorageException(
          "durability "
              + mode.configName()
              + " on the llpl engine requires that "
              + PMEM_FORCE_ENV
              + " is not 1: with it libpmem only flushes CPU caches, which is durability process");
    }
  }

  /**
   * Rejects {@code pmem} durability unless {@code dir} is on a file system mounted with DAX: on any
   * other file llpl's flush only empties CPU caches, so {@code pmem} would silently mean {@code
   * process}.
   *
   * @param mounts the text of {@code /proc/self/mounts}
   */
  static void checkDaxMount(Path dir, String mounts) {
    Path target = dir.toAbsolutePath().normalize();
    String best = null;
    String bestOptions = "";
    for (String line : mounts.split("\n")) {
      String[] fields = line.split(" ");
      if (fields.length < 4) {
        continue;
      }
      String mountPoint = fields[1].replace("\\040", " ");
      if (target.startsWith(mountPoint) && (best == null || mountPoint.length() > best.length())) {
        best = mountPoint;
        bestOptions = fields[3];
      }
    }
    for (String option : bestOptions.split(",")) {
      if (option.equals("dax") || option.equals("dax=always")) {
        return;
      }
    }
    throw new StorageException(
        "durability pmem needs the llpl heap on a DAX-mounted PM file system, but "
            + dir
            + " is on "
            + (best == null ? "an unknown mount" : best + " (options " + bestOptions + ")")
            + "; use durability fsync (msync) or process on this file system");
  }

  private static String readMounts() {
    try {
      return Files.readString(Path.of("/proc/self/mounts"));
    } catch (IOException e) {
      return "";
    }
  }

  private static LlplLogStorage create(
      String path, long capacityBytes, int chunkBytes, DurabilityMode mode, boolean directViews) {
    Heap heap = Heap.createHeap(path, capacityBytes);
    int wanted = (int) Math.min(MAX_CHUNKS, capacityBytes / chunkBytes);
    // The table goes first and at least as large as libpmemobj's 256 KiB allocation unit: a small
    // allocation made first, or last in a full heap, fails or costs several chunks.
    MemoryBlock table =
        heap.allocateMemoryBlock(
            Math.max(TABLE_MIN_BYTES, ChunkTableDescriptor.blockLength(wanted)), false);
    MemoryBlock[] blocks = new MemoryBlock[wanted];
    int count = 0;
    try {
      while (count < wanted) {
        blocks[count] = heap.allocateMemoryBlock(usableChunkBytes(chunkBytes), false);
        count++;
      }
    } catch (HeapException full) {
      // llpl's metadata takes part of the capacity: keep the chunks that fit.
    }
    if (count == 0) {
      closeHeap(heap);
      throw new StorageException(
          "llpl heap of "
              + capacityBytes
              + " bytes has no room for one chunk of "
              + chunkBytes
              + " bytes after llpl's metadata; raise the capacity or lower the chunk size");
    }
    MemoryBlock[] chunks = java.util.Arrays.copyOf(blocks, count);
    table.setLong(ChunkTableDescriptor.MAGIC_OFFSET, ChunkTableDescriptor.MAGIC);
    table.setInt(ChunkTableDescriptor.VERSION_OFFSET, ChunkTableDescriptor.VERSION);
    table.setInt(ChunkTableDescriptor.CHUNK_COUNT_OFFSET, count);
    table.setLong(ChunkTableDescriptor.CHUNK_SIZE_OFFSET, chunkBytes);
    table.setLong(
        ChunkTableDescriptor.TRIM_TABLE_OFFSET_OFFSET, ChunkTableDescriptor.trimTableOffset(count));
    for (int i = 0; i < count; i++) {
      table.setLong(ChunkTableDescriptor.handleOffset(i), chunks[i].handle());
    }
    table.flush(0, ChunkTableDescriptor.trimTableOffset(count));
    // Formats the chunks and the trim table.
    LlplLogStorage storage =
        new LlplLogStorage(
            mode, path, heap, table, chunks, usableChunkBytes(chunkBytes), true, directViews);
    // Last: a heap with a root has a complete table, a trim table and formatted chunks.
    heap.setRoot(table.handle());
    LOG.info(
        "created llpl heap {}: {} chunks of {} bytes ({})",
        path,
        count,
        chunkBytes,
        mode.configName());
    return storage;
  }

  private static LlplLogStorage openExisting(
      String path, long chunkBytes, DurabilityMode mode, boolean directViews) {
    Heap heap = Heap.openHeap(path);
    long root = heap.getRoot();
    if (root == 0) {
      closeHeap(heap);
      throw new StorageException(
          "llpl heap "
              + path
              + " has no chunk table: its creation was interrupted; delete the"
              + " file (it holds no entries) and start again");
    }
    MemoryBlock table = heap.memoryBlockFromHandle(root);
    long magic = table.getLong(ChunkTableDescriptor.MAGIC_OFFSET);
    int version = table.getInt(ChunkTableDescriptor.VERSION_OFFSET);
    long storedChunkBytes = table.getLong(ChunkTableDescriptor.CHUNK_SIZE_OFFSET);
    String problem =
        magic != ChunkTableDescriptor.MAGIC
            ? "is not a FlexLog heap (root magic 0x" + Long.toHexString(magic) + ")"
            : version != ChunkTableDescriptor.VERSION
                ? "has chunk table version "
                    + version
                    + ", this build reads "
                    + ChunkTableDescriptor.VERSION
                : storedChunkBytes != chunkBytes
                    ? "was created with chunks of "
                        + storedChunkBytes
                        + " bytes, the configuration says "
                        + chunkBytes
                    : null;
    if (problem != null) {
      closeHeap(heap);
      throw new StorageException("llpl heap " + path + " " + problem);
    }
    int count = table.getInt(ChunkTableDescriptor.CHUNK_COUNT_OFFSET);
    MemoryBlock[] blocks = new MemoryBlock[count];
    for (int i = 0; i < count; i++) {
      blocks[i] = heap.memoryBlockFromHandle(table.getLong(ChunkTableDescriptor.handleOffset(i)));
    }
    return new LlplLogStorage(
        mode, path, heap, table, blocks, usableChunkBytes((int) chunkBytes), false, directViews);
  }

  /** The part of a chunk of {@code chunkBytes} that holds the chunk header and entries. */
  static int usableChunkBytes(int chunkBytes) {
    return chunkBytes - BLOCK_OVERHEAD_BYTES;
  }

  @Override
  public String engineName() {
    return ENGINE_NAME;
  }

  @Override
  protected void release() {
    closeHeap(heap);
  }

  private static void closeHeap(Heap heap) {
    try {
      Method close = AnyHeap.class.getDeclaredMethod("close");
      close.setAccessible(true);
      close.invoke(heap);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("cannot close llpl heap ({}); it stays open until the JVM exits", e.toString());
    }
  }

  private static String probe() {
    try {
      // Touching Heap loads llpl's JNI library, which links against libpmemobj.
      return Heap.MINIMUM_HEAP_SIZE > 0 ? null : "llpl reports no minimum heap size";
    } catch (UnsatisfiedLinkError | NoClassDefFoundError | ExceptionInInitializerError e) {
      return "llpl cannot load libpmemobj (install libpmemobj1 and libpmempool1): " + e;
    }
  }

  /** Reads the raw address of a block's first byte through llpl's package-private accessor. */
  private static final class DirectAddress {
    static final Method PAYLOAD_ADDRESS;
    static final Method DIRECT_ADDRESS;
    static final String REASON;

    static {
      Method method = null;
      Method direct = null;
      String reason = null;
      try {
        method = MemoryAccessor.class.getDeclaredMethod("payloadAddress", long.class);
        method.setAccessible(true);
        direct = MemoryAccessor.class.getDeclaredMethod("directAddress");
        direct.setAccessible(true);
      } catch (ReflectiveOperationException | RuntimeException e) {
        reason = "llpl's MemoryAccessor.payloadAddress is not reachable: " + e;
      }
      PAYLOAD_ADDRESS = method;
      DIRECT_ADDRESS = direct;
      REASON = reason;
    }

    /** Offset in the heap file of the block's first usable byte. */
    static long fileOffset(MemoryBlock block) {
      // Without reflection, assume llpl 1.2's 8-byte block metadata; the caller verifies the
      // result against the chunk magic.
      long metadata = 8;
      if (REASON == null) {
        try {
          metadata = of(block) - (long) DIRECT_ADDRESS.invoke(block);
        } catch (ReflectiveOperationException e) {
          throw new StorageException("cannot read the address of an llpl block", e);
        }
      }
      return block.handle() + metadata;
    }

    static long of(MemoryBlock block) {
      try {
        return (long) PAYLOAD_ADDRESS.invoke(block, 0L);
      } catch (ReflectiveOperationException e) {
        throw new StorageException("cannot read the address of an llpl block", e);
      }
    }
  }
}
