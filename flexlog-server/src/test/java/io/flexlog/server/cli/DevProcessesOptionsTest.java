package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The option checks of {@code flexlog dev --processes}, which run before any process starts. */
class DevProcessesOptionsTest {
  private static String run(String... args) {
    CommandLine cmd = FlexLogCli.commandLine();
    StringWriter err = new StringWriter();
    cmd.setErr(new PrintWriter(err));
    assertThat(cmd.execute(args)).isEqualTo(CommandLine.ExitCode.USAGE);
    return err.toString();
  }

  @Test
  void shouldRefuseProcessesWithTheTreeLayout() {
    assertThat(run("dev", "--processes", "--tree"))
        .contains("--processes and --tree cannot be combined");
  }

  @Test
  void shouldRefuseAdminPortsThatOverlapTheNodePorts() {
    assertThat(run("dev", "--processes", "--port", "7070", "--admin-port", "7074"))
        .contains("--admin-port and the next 5 ports must be in 1..65535 and not node ports");
  }

  @Test
  void shouldRefuseAPortRangeBeyond65535() {
    assertThat(run("dev", "--processes", "--port", "65533")).contains("--port must be in 1..65530");
  }
}
