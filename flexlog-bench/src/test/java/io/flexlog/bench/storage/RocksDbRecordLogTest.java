package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.storage.DurabilityMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RocksDbRecordLogTest extends RecordLogContractTest {
  @Override
  RecordStore open(Path dir) {
    return new RocksDbStore(dir, DurabilityMode.PROCESS, pattern);
  }

  @Test
  void shouldNeverBeFull() {
    RecordLog log = store.openLog(0);

    assertThatThrownBy(log::makeRoom).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void shouldSyncTheWalOnlyBeyondProcessDurability() {
    try (RocksDbStore fsync =
        new RocksDbStore(dir.resolve("fsync"), DurabilityMode.FSYNC, pattern)) {
      assertThat(fsync.sync()).isTrue();
      assertThat(fsync.description()).contains("WAL on, sync=true");
    }
    assertThat(((RocksDbStore) store).sync()).isFalse();
    assertThat(store.description()).contains("WAL on, sync=false");
  }
}
