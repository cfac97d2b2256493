package io.flexlog.bench.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.pm.LlplLogStorage;
import org.junit.jupiter.api.BeforeAll;

/** The contract on llpl; skipped with a notice where libpmemobj is missing. */
class LlplRecordLogTest extends FlexLogRecordLogContractTest {
  @BeforeAll
  static void requireLlpl() {
    assumeTrue(
        LlplLogStorage.isAvailable(),
        () -> "llpl engine not tested: " + LlplLogStorage.unavailableReason());
  }

  @Override
  String engine() {
    return StorageEngines.LLPL;
  }
}
