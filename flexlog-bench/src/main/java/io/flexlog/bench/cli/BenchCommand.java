package io.flexlog.bench.cli;

import io.flexlog.bench.ordering.OrderingCommand;
import picocli.CommandLine.Command;

/**
 * {@code flexlog bench}: load generators, one subcommand per load; {@code append} against a running
 * cluster, {@code ordering} against sequencer trees it starts itself.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Benchmarks: a running FlexLog cluster (append), the storage engine (storage), the"
            + " ordering layer (ordering).",
    subcommands = {AppendCommand.class, StorageCommand.class, OrderingCommand.class})
public final class BenchCommand {}
