package io.flexlog.replica.storage.tier;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.pm.LlplLogStorage;
import io.flexlog.replica.storage.pm.PmEngines;
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
  TierableLog openPm(Path pmDir) {
    return PmEngines.llpl(pmDir, 16L << 20, CHUNK_BYTES, DurabilityMode.PROCESS, true, "1");
  }
}
