package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.Yaml;

/** A comparison with known numbers, and a JSON reader for checking reports. */
final class ReportFixtures {
  static final StorageSettings SETTINGS =
      new StorageSettings(
          1024,
          2,
          50,
          DurabilityMode.PROCESS,
          "llpl",
          Optional.empty(),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          Path.of("/data"),
          1L << 30,
          Optional.empty(),
          Optional.empty());

  static final LatencySummary APPEND_LATENCY = new LatencySummary(1000, 1.5, 1.2, 4.25, 9.5, 120);
  static final LatencySummary READ_LATENCY = new LatencySummary(900, 0.5, 0.4, 1.0, 2.0, 30);

  private ReportFixtures() {}

  /** FlexLog 1,234,567 ops/s against RocksDB 98,765.4 ops/s: a ratio of 12.499994. */
  static ComparisonResult comparison() {
    return new ComparisonResult(
        SETTINGS,
        new EngineResult(
            "flexlog",
            "FlexLog replica log, engine llpl",
            10.0,
            6_000_000,
            6_345_670,
            600_000,
            634_567,
            APPEND_LATENCY,
            READ_LATENCY,
            3,
            4.5,
            2000,
            Optional.empty()),
        new EngineResult(
            "rocksdb",
            "RocksDB \"11.8.1\"",
            10.0,
            500_000,
            487_654,
            50_000,
            48_765.4,
            APPEND_LATENCY,
            READ_LATENCY,
            0,
            0,
            2000,
            Optional.empty()));
  }

  /** Parses JSON (a subset of YAML) into maps, lists, numbers, strings and booleans. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> parseJson(String json) {
    return (Map<String, Object>) new Yaml().load(json);
  }
}
