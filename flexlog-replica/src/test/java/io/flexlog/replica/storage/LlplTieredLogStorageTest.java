package io.flexlog.replica.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

/** The tiered engine over llpl: a 16 MiB heap of 128 KiB chunks (about 8 MiB usable). */
class LlplTieredLogStorageTest extends TieredLogStorageTest {
  @BeforeAll
  static void requireLlpl() {
    assumeTrue(
        LlplLogStorage.isAvailable(),
        () -> "llpl engine not tested: " + LlplLogStorage.unavailableReason());
  }

  @Override
  LogStorage openPm(Path pmDir) {
    return LlplLogStorage.open(pmDir, 16L << 20, CHUNK_BYTES, DurabilityMode.PROCESS, true, "1");
  }
}
