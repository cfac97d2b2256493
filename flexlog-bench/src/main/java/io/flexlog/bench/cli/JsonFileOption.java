package io.flexlog.bench.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code --json FILE} option of every {@code flexlog bench} subcommand (a picocli mixin). The
 * file is checked before the run starts, so that a long run does not end unable to write it.
 */
public final class JsonFileOption {
  @Spec(Spec.Target.MIXEE)
  private CommandSpec mixee;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the results to FILE as a JSON object.")
  private Path file;

  /**
   * The file given, if any.
   *
   * @throws ParameterException if it is a directory or its directory does not exist
   */
  public Optional<Path> file() {
    if (file == null) {
      return Optional.empty();
    }
    if (Files.isDirectory(file)) {
      throw bad("--json " + file + " is a directory, expected a file");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw bad("--json " + file + ": directory " + parent + " does not exist");
    }
    return Optional.of(file);
  }

  private ParameterException bad(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }
}
