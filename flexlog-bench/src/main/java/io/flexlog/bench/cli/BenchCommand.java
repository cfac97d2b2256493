package io.flexlog.bench.cli;

import io.flexlog.bench.e2e.E2eCommand;
import io.flexlog.bench.failover.FailoverCommand;
import io.flexlog.bench.ordering.OrderingCommand;
import picocli.CommandLine.Command;

/**
 * {@code flexlog bench}: load generators, one subcommand per load; {@code append} against a running
 * cluster, {@code ordering} against sequencer trees it starts itself, {@code e2e} against a running
 * cluster or the embedded tree.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Benchmarks: a running FlexLog cluster (append), the storage engine (storage), the"
            + " ordering layer (ordering), append and subscribe latency per color (e2e), a"
            + " Kafka-style producer (produce).",
    subcommands = {
      AppendCommand.class,
      StorageCommand.class,
      OrderingCommand.class,
      E2eCommand.class,
      ProduceCommand.class,
      io.flexlog.bench.consume.ConsumeCommand.class,
      FailoverCommand.class
    })
public final class BenchCommand {}
