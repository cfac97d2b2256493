package io.flexlog.replica.storage.pm;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract on llpl with {@code fsync} durability (msync through a second mapping of each
 * chunk). Surefire sets {@code PMEM_IS_PMEM_FORCE=1}, which {@code fsync} refuses; the test passes
 * the variable as unset, which only changes how libpmemobj persists its own metadata.
 */
class LlplFsyncContractTest extends LogStorageContractTest {
  @BeforeAll
  static void requireLlpl() {
    assumeTrue(
        LlplLogStorage.isAvailable(),
        () -> "llpl engine not tested: " + LlplLogStorage.unavailableReason());
  }

  @Override
  ChunkedLogStorage open(Path dir, int chunks, long chunkBytes) {
    return LlplLogStorage.open(
        dir,
        LlplLogStorageContractTest.heapCapacity(chunks, chunkBytes),
        chunkBytes,
        DurabilityMode.FSYNC,
        true,
        null);
  }
}
