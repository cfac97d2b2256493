package io.flexlog.replica.storage;

import java.nio.file.Path;

/** The tiered engine over the mapped-file PM log: 2 MiB of 128 KiB chunks. */
class MappedTieredLogStorageTest extends TieredLogStorageTest {
  @Override
  LogStorage openPm(Path pmDir) {
    return MappedFileLogStorage.open(pmDir, 16 * CHUNK_BYTES, CHUNK_BYTES, DurabilityMode.PROCESS);
  }
}
