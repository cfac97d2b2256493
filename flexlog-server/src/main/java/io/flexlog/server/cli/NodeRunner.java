package io.flexlog.server.cli;

import java.util.concurrent.CountDownLatch;

/** Keeps a node process alive until SIGINT/SIGTERM, then closes it cleanly. */
final class NodeRunner {
  private NodeRunner() {}

  static void runUntilStopped(AutoCloseable node, String stoppedMessage)
      throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    node.close();
                  } catch (Exception e) {
                    System.err.println("flexlog: error while stopping: " + e);
                  }
                  System.out.println(stoppedMessage);
                  System.out.flush();
                  stopped.countDown();
                },
                "flexlog-shutdown"));
    stopped.await();
  }
}
