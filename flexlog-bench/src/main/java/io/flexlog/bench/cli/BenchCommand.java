package io.flexlog.bench.cli;

import picocli.CommandLine.Command;

/** {@code flexlog bench}: load generators against a running cluster; one subcommand per load. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmarks: a running FlexLog cluster (append), the storage engine (storage).",
    subcommands = {AppendCommand.class, StorageCommand.class})
public final class BenchCommand {}
