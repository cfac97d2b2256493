package io.flexlog.replica.storage.pm;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

/** The contract on llpl; skipped with a notice where libpmemobj is missing. */
class LlplLogStorageContractTest extends LogStorageContractTest {
  @BeforeAll
  static void requireLlpl() {
    assumeTrue(
        LlplLogStorage.isAvailable(),
        () -> "llpl engine not tested: " + LlplLogStorage.unavailableReason());
  }

  @Override
  ChunkedLogStorage open(Path dir, int chunks, long chunkBytes) {
    return LlplLogStorage.open(
        dir, heapCapacity(chunks, chunkBytes), chunkBytes, DurabilityMode.PROCESS, true, "1");
  }

  /** llpl's metadata needs room beyond the chunks, and a heap has a minimum size. */
  static long heapCapacity(int chunks, long chunkBytes) {
    return Math.max(com.intel.pmem.llpl.Heap.MINIMUM_HEAP_SIZE, chunks * chunkBytes * 2);
  }
}
