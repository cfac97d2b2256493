package io.flexlog.replica.storage.tier;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.pm.MappedFileLogStorage;
import java.nio.file.Path;

/** The tiered engine over the mapped-file PM log: 2 MiB of 128 KiB chunks. */
class MappedTieredLogStorageTest extends TieredLogStorageTest {
  @Override
  TierableLog openPm(Path pmDir) {
    return MappedFileLogStorage.open(pmDir, 16 * CHUNK_BYTES, CHUNK_BYTES, DurabilityMode.PROCESS);
  }
}
