package io.flexlog.bench.storage;

import java.util.Locale;

/** Both engines' results for one {@link StorageSettings}. */
public record ComparisonResult(
    StorageSettings settings, EngineResult flexlog, EngineResult rocksdb) {

  /** FlexLog's operations per second over RocksDB's; infinite if RocksDB did nothing. */
  public double ratio() {
    return flexlog.opsPerSec() / rocksdb.opsPerSec();
  }

  /** The last line of the report: {@code ratio flexlog/rocksdb = X}, X with 2 decimals. */
  public String ratioLine() {
    return String.format(Locale.ROOT, "ratio flexlog/rocksdb = %.2f", ratio());
  }
}
