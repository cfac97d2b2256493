package io.flexlog.testcontainers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Attaches the tail of each watched container's output to a failing test's exception (as a
 * suppressed error, so that it lands in the console and the failsafe report) while the containers
 * still run.
 */
final class LogsOnFailure implements TestExecutionExceptionHandler {
  private static final int TAIL_LINES = 60;
  private final Map<String, Supplier<String>> watched = new ConcurrentHashMap<>();

  /** Shows {@code logs} under {@code name} when a test fails. */
  void watch(String name, Supplier<String> logs) {
    watched.put(name, logs);
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    StringBuilder all = new StringBuilder();
    watched.forEach(
        (name, logs) -> {
          String text;
          try {
            text = tail(logs.get());
          } catch (RuntimeException e) {
            text = "(no logs: " + e + ")";
          }
          all.append("---- ").append(name).append(" ----\n").append(text).append('\n');
        });
    if (all.length() > 0) {
      throwable.addSuppressed(new ContainerLogs(all.toString()));
    }
    throw throwable;
  }

  private static String tail(String logs) {
    String[] lines = logs.split("\n", -1);
    int from = Math.max(0, lines.length - TAIL_LINES);
    return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
  }

  /** Carries container logs in a failure report; not itself an error. */
  static final class ContainerLogs extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ContainerLogs(String logs) {
      super("container logs\n" + logs, null, false, false);
    }
  }
}
