package io.flexlog.bench.storage;

import io.flexlog.replica.storage.StorageEngines;

class MappedRecordLogTest extends FlexLogRecordLogContractTest {
  @Override
  String engine() {
    return StorageEngines.MAPPED;
  }
}
