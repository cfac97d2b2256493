package io.flexlog.testcontainers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a command line (docker, docker compose) with a time limit and returns its output. */
final class Commands {
  private Commands() {}

  /** Exit code and output (stdout and stderr merged) of a finished command. */
  record Result(List<String> command, int exitCode, String output) {
    Result check() {
      if (exitCode != 0) {
        throw new AssertionError(
            String.join(" ", command) + " exited with " + exitCode + ":\n" + output);
      }
      return this;
    }
  }

  /** Runs {@code command} with extra environment variables; kills it after {@code timeout}. */
  static Result run(Duration timeout, Map<String, String> env, List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      CompletableFuture<String> output =
          CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError(
            String.join(" ", command)
                + " did not finish within "
                + timeout
                + ":\n"
                + output.join());
      }
      return new Result(command, process.exitValue(), output.join());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + String.join(" ", command), e);
    }
  }

  /** Runs {@code command}; false when it cannot be started or exits with an error. */
  static boolean succeeds(List<String> command) {
    try {
      return run(Duration.ofSeconds(30), Map.of(), command).exitCode() == 0;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(output unreadable: " + e + ")";
    }
  }
}
