package io.flexlog.replica.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

/** The contract on llpl's array-copy fallback, used when chunk addresses are unreachable. */
class LlplAccessorFallbackContractTest extends LogStorageContractTest {
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
        DurabilityMode.PROCESS,
        false,
        "1");
  }
}
