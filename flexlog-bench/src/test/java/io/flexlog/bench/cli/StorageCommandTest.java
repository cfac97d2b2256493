package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.bench.storage.EngineChoice;
import io.flexlog.bench.storage.StorageSettings;
import io.flexlog.bench.storage.TieredOptions;
import io.flexlog.replica.storage.DurabilityMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StorageCommandTest {
  @TempDir Path dir;

  private final List<StorageSettings> runs = new ArrayList<>();
  private final StringWriter err = new StringWriter();
  private int runnerExitCode;
  // As on a machine with llpl and PMEM_IS_PMEM_FORCE=1 (what bin/flexlog sets for process).
  private StorageCommand.EngineResolver resolver =
      (requested, mode) -> EngineChoice.resolve(requested, mode, null, "1");

  private int execute(String... args) {
    CommandLine cmd =
        new CommandLine(
            new StorageCommand(
                (settings, out, errWriter) -> {
                  runs.add(settings);
                  return runnerExitCode;
                },
                (requested, mode) -> resolver.resolve(requested, mode)));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  private String[] required(String... more) {
    return Stream.concat(
            Stream.of(
                "--record-bytes=1024",
                "--threads=1",
                "--read-percent=0",
                "--durability=process",
                "--data-dir=" + dir),
            Stream.of(more))
        .toArray(String[]::new);
  }

  @Test
  void shouldApplyDefaultsToTheRequiredOptions() {
    int exit =
        execute(
            "--record-bytes",
            "1024",
            "--threads",
            "2",
            "--read-percent",
            "50",
            "--durability",
            "process");

    assertThat(exit).isZero();
    assertThat(runs)
        .containsExactly(
            new StorageSettings(
                1024,
                2,
                50,
                DurabilityMode.PROCESS,
                "llpl",
                Optional.empty(),
                Duration.ofSeconds(10),
                Duration.ofSeconds(2),
                Path.of(System.getProperty("java.io.tmpdir")),
                1L << 30,
                Optional.empty(),
                Optional.empty()));
  }

  @Test
  void shouldTakeEveryOption() {
    Path json = dir.resolve("out.json");
    resolver = (requested, mode) -> EngineChoice.resolve(requested, mode, null, null);

    int exit =
        execute(
            "--record-bytes=64",
            "--threads=4",
            "--read-percent=95",
            "--durability=FSYNC",
            "--engine=mapped",
            "--duration=3s",
            "--warmup=0s",
            "--json=" + json,
            "--data-dir=" + dir,
            "--log-bytes=256MiB");

    assertThat(exit).isZero();
    assertThat(runs)
        .containsExactly(
            new StorageSettings(
                64,
                4,
                95,
                DurabilityMode.FSYNC,
                "mapped",
                Optional.empty(),
                Duration.ofSeconds(3),
                Duration.ZERO,
                dir,
                256L << 20,
                Optional.empty(),
                Optional.of(json)));
  }

  @Test
  void shouldFallBackToMappedWithANoticeWhenAutoCannotUseLlpl() {
    resolver = (requested, mode) -> EngineChoice.resolve(requested, mode, "no libpmemobj", "1");

    assertThat(execute(required())).isZero();
    assertThat(runs.get(0).engine()).isEqualTo("mapped");
    assertThat(runs.get(0).engineNotice()).hasValueSatisfying(n -> n.contains("no libpmemobj"));
  }

  @Test
  void shouldReturnTheRunnersExitCode() {
    runnerExitCode = 1;

    assertThat(execute(required())).isEqualTo(1);
  }

  @Test
  void shouldRequireRecordBytesThreadsReadPercentAndDurability() {
    assertRejected("--record-bytes", "--threads=1", "--read-percent=0", "--durability=process");
    assertRejected("--threads", "--record-bytes=8", "--read-percent=0", "--durability=process");
    assertRejected("--read-percent", "--record-bytes=8", "--threads=1", "--durability=process");
    assertRejected("--durability", "--record-bytes=8", "--threads=1", "--read-percent=0");
  }

  @Test
  void shouldRejectOutOfRangeNumbers() {
    assertRejected(
        "--record-bytes must be between 8 and 1048576, got 7",
        "--record-bytes=7",
        "--threads=1",
        "--read-percent=0",
        "--durability=process");
    assertRejected(
        "--record-bytes must be between 8 and 1048576, got 1048577",
        "--record-bytes=1048577",
        "--threads=1",
        "--read-percent=0",
        "--durability=process");
    assertRejected(
        "--threads must be between 1 and 64, got 0",
        "--record-bytes=8",
        "--threads=0",
        "--read-percent=0",
        "--durability=process");
    assertRejected(
        "--threads must be between 1 and 64, got 65",
        "--record-bytes=8",
        "--threads=65",
        "--read-percent=0",
        "--durability=process");
    assertRejected(
        "--read-percent must be between 0 and 100, got 101",
        "--record-bytes=8",
        "--threads=1",
        "--read-percent=101",
        "--durability=process");
    assertRejected(
        "--read-percent must be between 0 and 100, got -1",
        "--record-bytes=8",
        "--threads=1",
        "--read-percent=-1",
        "--durability=process");
    assertRejected("--duration must be longer than 0", required("--duration=0s"));
  }

  @Test
  void shouldRejectValuesThatDoNotParse() {
    assertRejected(
        "unknown durability mode 'disk': expected pmem, process or fsync",
        "--record-bytes=8",
        "--threads=1",
        "--read-percent=0",
        "--durability=disk");
    assertRejected(
        "'many'", "--record-bytes=8", "--threads=many", "--read-percent=0", "--durability=process");
    assertRejected("'10x' is not a duration", required("--duration=10x"));
    assertRejected("'soon' is not a duration", required("--warmup=soon"));
    assertRejected("--log-bytes: 'lots' is not a size", required("--log-bytes=lots"));
  }

  @Test
  void shouldRejectUnknownEngineAndUnusableLlpl() {
    assertRejected(
        "--engine must be auto, llpl, mapped or tiered, got 'rocks'", required("--engine=rocks"));

    resolver = (requested, mode) -> EngineChoice.resolve(requested, mode, "no libpmemobj", "1");
    assertRejected("--engine llpl: no libpmemobj", required("--engine=llpl"));

    resolver = (requested, mode) -> EngineChoice.resolve(requested, mode, null, null);
    assertRejected("PMEM_IS_PMEM_FORCE=1", required("--engine=llpl"));
  }

  @Test
  void shouldRunTheTieredEngineWithItsPmAndCacheSizes() {
    assertThat(execute(required("--engine=tiered"))).isZero();
    assertThat(execute(required("--engine=tiered", "--pm-bytes=64MiB", "--cache-bytes=0")))
        .isZero();

    assertThat(runs.get(0).engine()).isEqualTo("llpl");
    assertThat(runs.get(0).engineName()).isEqualTo("tiered");
    assertThat(runs.get(0).tiered()).contains(new TieredOptions(256L << 20, 256L << 20));
    assertThat(runs.get(0).chunkBytes()).isEqualTo(16L << 20);
    assertThat(runs.get(1).tiered()).contains(new TieredOptions(64L << 20, 0));
  }

  @Test
  void shouldRejectTierSizesOutsideTheTieredEngineOrOutOfRange() {
    assertRejected(
        "--pm-bytes applies to --engine tiered only, not --engine mapped",
        required("--engine=mapped", "--pm-bytes=64MiB"));
    assertRejected(
        "--cache-bytes applies to --engine tiered only, not --engine auto",
        required("--cache-bytes=64MiB"));
    assertRejected(
        "--pm-bytes must be at least 16MiB", required("--engine=tiered", "--pm-bytes=1MiB"));
    assertRejected(
        "--cache-bytes must be 0 or at least 64KiB",
        required("--engine=tiered", "--cache-bytes=1KiB"));
    assertRejected(
        "of direct memory for the caches", required("--engine=tiered", "--cache-bytes=1TiB"));
  }

  @Test
  void shouldRejectPmemDurabilityOnTheMappedEngine() {
    assertRejected(
        "--durability pmem needs the llpl engine",
        "--record-bytes=8",
        "--threads=1",
        "--read-percent=0",
        "--durability=pmem",
        "--engine=mapped");
  }

  @Test
  void shouldRejectLogsTooSmallOrWhoseIndexWouldNotFitTheHeap() {
    assertRejected("--log-bytes must be at least 64MiB", required("--log-bytes=32MiB"));
    assertRejected(
        "MiB of heap for FlexLog's record indexes",
        "--record-bytes=8",
        "--threads=64",
        "--read-percent=0",
        "--durability=process",
        "--log-bytes=1TiB");
  }

  @Test
  void shouldRejectMissingDataDirAndJsonFileInMissingDirectory() {
    assertRejected(
        "is not a writable directory",
        "--record-bytes=8",
        "--threads=1",
        "--read-percent=0",
        "--durability=process",
        "--data-dir=" + dir.resolve("missing"));
    assertRejected("does not exist", required("--json=" + dir.resolve("missing/out.json")));
    assertRejected("is a directory", required("--json=" + dir));
  }

  private void assertRejected(String expectedMessage, String... args) {
    err.getBuffer().setLength(0);
    int exit = execute(args);

    assertThat(exit).as("exit code for %s", List.of(args)).isEqualTo(2);
    assertThat(err.toString()).contains(expectedMessage).contains("Usage: storage");
    assertThat(runs).isEmpty();
  }
}
