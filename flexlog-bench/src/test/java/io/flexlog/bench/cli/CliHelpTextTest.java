package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.server.cli.FlexLogCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The help of every command of {@code flexlog}, bench commands included: rendered without picocli
 * warnings (an unescaped {@code %}), a first description line that is a whole sentence (a parent's
 * command list shows only that line), and a description for every option.
 */
class CliHelpTextTest {
  @Test
  void shouldRenderEveryCommandsHelpWithoutWarningsAndWithWholeSentences() {
    List<CommandLine> commands = new ArrayList<>();
    collect(FlexLogCli.commandLine(), commands);
    assertThat(commands).extracting(CommandLine::getCommandName).contains("storage", "colors");

    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (CommandLine command : commands) {
        command.getUsageMessage();
      }
    } finally {
      System.setErr(err);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("picocli WARN");

    for (CommandLine command : commands) {
      String[] description = command.getCommandSpec().usageMessage().description();
      String name = command.getCommandSpec().qualifiedName();
      assertThat(description).as(name).isNotEmpty();
      assertThat(description[0].strip()).as(name + " first description line").endsWith(".");
      for (OptionSpec option : command.getCommandSpec().options()) {
        assertThat(option.description()).as(name + " " + option.longestName()).isNotEmpty();
      }
    }
  }

  @Test
  void shouldPrintTheBuildsVersionForVersionOnEveryCommand() {
    List<CommandLine> commands = new ArrayList<>();
    collect(FlexLogCli.commandLine(), commands);
    for (CommandLine command : commands) {
      java.io.StringWriter out = new java.io.StringWriter();
      command.printVersionHelp(new java.io.PrintWriter(out, true));
      assertThat(out.toString())
          .as(command.getCommandSpec().qualifiedName() + " -V")
          .matches("FlexLog \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(Java .*\\)\\R");
    }
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    into.add(command);
    command.getSubcommands().values().forEach(sub -> collect(sub, into));
  }
}
