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
    description = "Benchmarks FlexLog: a running cluster, or parts of it started in-process.",
    subcommands = {AppendCommand.class, OrderingCommand.class})
public final class BenchCommand {}
