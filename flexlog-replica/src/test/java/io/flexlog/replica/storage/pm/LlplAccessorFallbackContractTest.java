package io.flexlog.replica.storage.pm;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
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
