package io.flexlog.replica.storage.pm;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.chunk.ChunkedLogStorage;
import java.nio.file.Path;

class MappedFileLogStorageContractTest extends LogStorageContractTest {
  @Override
  ChunkedLogStorage open(Path dir, int chunks, long chunkBytes) {
    return MappedFileLogStorage.open(dir, chunks * chunkBytes, chunkBytes, DurabilityMode.PROCESS);
  }
}
