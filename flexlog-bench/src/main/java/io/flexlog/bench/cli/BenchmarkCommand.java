package io.flexlog.bench.cli;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.server.config.DataSize;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every {@code flexlog bench} subcommand does around its own options: validate them together
 * into settings {@code S}, hand those to a {@link Runner} with the command's output streams, and
 * return its exit code. A bad argument is a {@link ParameterException} (from {@link #bad} and the
 * checks here), which picocli prints with the usage and turns into exit code 2.
 *
 * @param <S> the validated settings of the benchmark
 */
public abstract class BenchmarkCommand<S> implements Callable<Integer> {
  /** Runs a benchmark with validated settings and returns the exit code. */
  @FunctionalInterface
  public interface Runner<S> {
    int run(S settings, PrintWriter out, PrintWriter err) throws InterruptedException;
  }

  @Spec private CommandSpec spec;

  private final Runner<S> runner;

  protected BenchmarkCommand(Runner<S> runner) {
    this.runner = runner;
  }

  @Override
  public final Integer call() throws InterruptedException {
    S settings = settings();
    return runner.run(settings, spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /**
   * Validates the parsed options together.
   *
   * @throws ParameterException naming the option that is wrong
   */
  protected abstract S settings();

  /** This command as picocli parsed it. */
  protected final CommandSpec spec() {
    return spec;
  }

  protected final ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** Rejects {@code value} of {@code option} outside {@code min..max}. */
  protected final void checkRange(String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw bad(option + " must be between " + min + " and " + max + ", got " + value);
    }
  }

  /** Rejects a zero or negative {@code value} of {@code option}. */
  protected final void checkLongerThanZero(String option, Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw bad(option + " must be longer than 0, got " + value);
    }
  }

  /** Rejects a {@code --bootstrap} list that the client would not accept. */
  protected final void checkBootstrap(String bootstrap) {
    try {
      FlexLogConfig.builder().bootstrapServers(bootstrap).build();
    } catch (IllegalArgumentException e) {
      throw bad("--bootstrap: " + e.getMessage());
    }
  }

  /** {@code value} of {@code option} parsed as a size such as {@code 256MiB}, in bytes. */
  protected final long size(String option, String value) {
    try {
      return DataSize.parse(option, value);
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
  }
}
