package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.bench.e2e.E2eCommand;
import io.flexlog.bench.ordering.OrderingCommand;
import io.flexlog.server.cli.CliExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCliExtensionTest {

  @Test
  void shouldBeFoundByTheLaunchersServiceLoader() {
    assertThat(ServiceLoader.load(CliExtension.class).stream().map(ServiceLoader.Provider::type))
        .contains(BenchCliExtension.class);
  }

  @Test
  void shouldContributeBenchCommandWithItsSubcommands() {
    CommandLine bench = new CommandLine(new BenchCliExtension().command());

    assertThat(bench.getCommandName()).isEqualTo("bench");
    assertThat(bench.getSubcommands())
        .containsOnlyKeys("append", "storage", "ordering", "e2e", "produce", "consume", "failover");
    Object append = bench.getSubcommands().get("append").getCommand();
    Object storage = bench.getSubcommands().get("storage").getCommand();
    Object ordering = bench.getSubcommands().get("ordering").getCommand();
    assertThat(append).isInstanceOf(AppendCommand.class);
    assertThat(storage).isInstanceOf(StorageCommand.class);
    assertThat(ordering).isInstanceOf(OrderingCommand.class);
    Object e2e = bench.getSubcommands().get("e2e").getCommand();
    assertThat(e2e).isInstanceOf(E2eCommand.class);
    Object consume = bench.getSubcommands().get("consume").getCommand();
    assertThat(consume).isInstanceOf(io.flexlog.bench.consume.ConsumeCommand.class);
  }

  @Test
  void shouldRejectBenchWithoutSubcommand() {
    CommandLine bench = new CommandLine(new BenchCliExtension().command());
    StringWriter err = new StringWriter();
    bench.setErr(new PrintWriter(err, true));

    assertThat(bench.execute()).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required subcommand");
  }
}
