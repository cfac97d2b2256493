package io.flexlog.replica.storage;

import com.intel.pmem.llpl.AnyHeap;
import com.intel.pmem.llpl.Heap;
import com.intel.pmem.llpl.HeapException;
import com.intel.pmem.llpl.MemoryAccessor;
import com.intel.pmem.llpl.MemoryBlock;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log storage in persistent memory through llpl ({@code com.intel.pmem:llpl}, which needs
 * libpmemobj). One heap file {@code <dir>/pm.heap}; its root block is the chunk table ({@link
 * ChunkTableDescriptor}); every chunk is one {@link MemoryBlock} allocated when the heap is
 * created, so appends never allocate from llpl.
 *
 * <p>Payload copy: the raw address of each chunk is read once from llpl (a package-private method,
 * reached by reflection: FlexLog runs on the class path, so {@code setAccessible} works) and
 * wrapped in a Netty buffer: the payload is copied once from the caller's buffer into PM, and
 * {@link #payload} returns views of PM. If the address cannot be obtained, the engine logs it once
 * and goes through llpl's array accessors instead (one extra copy each way).
 *
 * <p>Durability. libpmem decides how a flush reaches the media from the environment variable {@code
 * PMEM_IS_PMEM_FORCE}, read once per process:
 *
 * <ul>
 *   <li>{@code process} requires {@code PMEM_IS_PMEM_FORCE=1}: libpmem treats the heap as PM and
 *       only flushes CPU cache lines into the shared file mapping, which survives a crash of the
 *       process, not of the machine. The launcher and the test build set it.
 *   <li>{@code pmem} and {@code fsync} require that it is not {@code 1}: on a real PM/DAX mount
 *       libpmem then flushes cache lines to the persistence domain, and on a plain file it falls
 *       back to {@code msync}. With the variable set they would silently degrade to {@code
 *       process}, so opening fails instead.
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
  // Cache-line flushes: merging SN words that are more than a few lines apart only adds work.
  private static final int COALESCE_GAP_BYTES = 256;
  private static final String AVAILABILITY = probe();

  /**
   * Bytes of each chunk's footprint that llpl and libpmemobj use themselves (allocation header and
   * block size word, rounded up). Asking for {@code chunkBytes - 64} keeps a chunk inside whole 256
   * KiB libpmemobj units: asking for exactly 1 MiB would occupy 1.25 MiB.
   */
  static final int BLOCK_OVERHEAD_BYTES = 64;

  private static final long TABLE_MIN_BYTES = 256 * 1024;

  private final Heap heap;
  private final ChunkMemory[] chunks;

  private LlplLogStorage(
      DurabilityMode mode,
      Heap heap,
      MemoryBlock[] blocks,
      int chunkBytes,
      boolean fresh,
      boolean directViews) {
    super(mode);
    this.heap = heap;
    this.chunks = new ChunkMemory[blocks.length];
    boolean direct =
        directViews && DirectAddress.REASON == null && NativeMemory.unavailableReason() == null;
    if (directViews && !direct) {
      LOG.warn(
          "llpl chunks without direct views ({}): payloads are copied through arrays",
          DirectAddress.REASON != null ? DirectAddress.REASON : NativeMemory.unavailableReason());
    }
    for (int i = 0; i < blocks.length; i++) {
      MemoryBlock block = blocks[i];
      chunks[i] =
          direct
              ? new ByteBufChunkMemory(
                  NativeMemory.wrap(DirectAddress.of(block), chunkBytes), block::flush)
              : new LlplAccessorChunkMemory(block, chunkBytes);
      if (fresh) {
        ChunkLog.format(chunks[i], i, chunkBytes);
      }
    }
    attach(new ChunkLog(chunks, chunkBytes, COALESCE_GAP_BYTES, fresh));
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
    return open(dir, capacityBytes, chunkBytes, mode, true);
  }

  /**
   * As {@link #open(Path, long, long, DurabilityMode)}; {@code directViews == false} forces the
   * array-copy fallback so tests cover it on machines where the direct path works.
   */
  static LlplLogStorage open(
      Path dir, long capacityBytes, long chunkBytes, DurabilityMode mode, boolean directViews) {
    if (!isAvailable()) {
      throw new StorageException("llpl engine unavailable: " + AVAILABILITY);
    }
    checkEnvironment(mode, System.getenv(PMEM_FORCE_ENV));
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

  private static LlplLogStorage create(
      String path, long capacityBytes, int chunkBytes, DurabilityMode mode, boolean directViews) {
    Heap heap = Heap.createHeap(path, capacityBytes);
    int wanted = (int) Math.min(MAX_CHUNKS, capacityBytes / chunkBytes);
    // The table goes first and at least as large as libpmemobj's 256 KiB allocation unit: a small
    // allocation made first, or last in a full heap, fails or costs several chunks.
    MemoryBlock table =
        heap.allocateMemoryBlock(
            Math.max(TABLE_MIN_BYTES, ChunkTableDescriptor.tableLength(wanted)), false);
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
    LlplLogStorage storage =
        new LlplLogStorage(mode, heap, chunks, usableChunkBytes(chunkBytes), true, directViews);
    table.setLong(ChunkTableDescriptor.MAGIC_OFFSET, ChunkTableDescriptor.MAGIC);
    table.setInt(ChunkTableDescriptor.VERSION_OFFSET, ChunkTableDescriptor.VERSION);
    table.setInt(ChunkTableDescriptor.CHUNK_COUNT_OFFSET, count);
    table.setLong(ChunkTableDescriptor.CHUNK_SIZE_OFFSET, chunkBytes);
    for (int i = 0; i < count; i++) {
      table.setLong(ChunkTableDescriptor.handleOffset(i), chunks[i].handle());
    }
    table.flush(0, ChunkTableDescriptor.tableLength(count));
    // Last: a heap with a root has a complete table and formatted chunks.
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
        mode, heap, blocks, usableChunkBytes((int) chunkBytes), false, directViews);
  }

  /** The part of a chunk of {@code chunkBytes} that holds the chunk header and entries. */
  static int usableChunkBytes(int chunkBytes) {
    return chunkBytes - BLOCK_OVERHEAD_BYTES;
  }

  @Override
  ChunkMemory chunk(int index) {
    return chunks[index];
  }

  @Override
  public String engineName() {
    return ENGINE_NAME;
  }

  @Override
  void release() {
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
    static final String REASON;

    static {
      Method method = null;
      String reason = null;
      try {
        method = MemoryAccessor.class.getDeclaredMethod("payloadAddress", long.class);
        method.setAccessible(true);
      } catch (ReflectiveOperationException | RuntimeException e) {
        reason = "llpl's MemoryAccessor.payloadAddress is not reachable: " + e;
      }
      PAYLOAD_ADDRESS = method;
      REASON = reason;
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
