package io.flexlog.server.cli;

import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.util.FlexLogVersion;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code flexlog} command line. Exit codes: 0 success, 1 the operation failed (a hole, a
 * timeout, a node error), 2 bad arguments.
 */
@Command(
    name = "flexlog",
    mixinStandardHelpOptions = true,
    versionProvider = FlexLogCli.Version.class,
    description = "FlexLog: a shared log for stateful serverless computing.",
    subcommands = {
      DevCommand.class,
      SequencerCommand.class,
      ReplicaCommand.class,
      AppendCommand.class,
      ReadCommand.class,
      TailCommand.class,
      TrimCommand.class,
      DescribeCommand.class,
      StatusCommand.class,
      ColorsCommand.class,
      GroupsCommand.class
    })
public final class FlexLogCli {
  private static final java.util.Set<String> CLIENT_COMMANDS =
      java.util.Set.of(
          "append", "read", "tail", "trim", "describe", "status", "colors", "groups", "bench");

  public static void main(String[] args) {
    if (args.length > 0 && CLIENT_COMMANDS.contains(args[0])) {
      System.setProperty("flexlog.log.level", "WARN");
    }
    System.exit(commandLine().execute(args));
  }

  /** The command line with every subcommand, extensions included. */
  public static CommandLine commandLine() {
    CommandLine cmd = new CommandLine(new FlexLogCli());
    for (CliExtension extension : ServiceLoader.load(CliExtension.class)) {
      cmd.addSubcommand(extension.command());
    }
    shareVersion(cmd, new Version());
    cmd.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof IllegalArgumentException) {
            commandLine.getErr().println("flexlog: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
          }
          if (e instanceof FlexLogException || e instanceof java.io.IOException) {
            commandLine.getErr().println("flexlog: " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
          }
          commandLine.getErr().println("flexlog: " + e);
          e.printStackTrace(commandLine.getErr());
          return CommandLine.ExitCode.SOFTWARE;
        });
    return cmd;
  }

  /** The build's version and the Java runtime, for {@code -V} on every command. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
        "FlexLog "
            + FlexLogVersion.version()
            + " (Java "
            + Runtime.version()
            + ", "
            + System.getProperty("java.vm.name")
            + ")"
      };
    }
  }

  // Subcommands, extensions included, answer -V with the same version as the top command.
  private static void shareVersion(CommandLine cmd, CommandLine.IVersionProvider version) {
    cmd.getCommandSpec().versionProvider(version);
    cmd.getSubcommands().values().forEach(sub -> shareVersion(sub, version));
  }
}
