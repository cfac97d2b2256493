package io.flexlog.it;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Attaches the tail of every node's stdout and stderr to a failing test's exception (as a
 * suppressed error, so it lands in the surefire report), while the cluster is still running.
 */
final class NodeLogsOnFailure implements TestExecutionExceptionHandler {
  private static final int TAIL_LINES = 40;
  private volatile TestCluster cluster;

  TestCluster watch(TestCluster cluster) {
    this.cluster = cluster;
    return cluster;
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    TestCluster watched = cluster;
    if (watched != null) {
      String tails = watched.logTails(TAIL_LINES);
      System.err.println(context.getDisplayName() + " failed; node logs:\n" + tails);
      throwable.addSuppressed(new NodeLogs(tails));
    }
    throw throwable;
  }

  /** Carries node logs in a failure report; not itself an error. */
  static final class NodeLogs extends RuntimeException {
    NodeLogs(String logs) {
      super("node logs\n" + logs, null, false, false);
    }
  }
}
