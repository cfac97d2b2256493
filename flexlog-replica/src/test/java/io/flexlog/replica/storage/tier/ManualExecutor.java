package io.flexlog.replica.storage.tier;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** A stand-in for the tiering thread whose tasks run only when the test says so. */
final class ManualExecutor implements Executor {
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(task);
  }

  synchronized int pending() {
    return tasks.size();
  }

  /** Runs queued tasks, including tasks they queue, until none is left. */
  void runAll() {
    Runnable task;
    while ((task = poll()) != null) {
      task.run();
    }
  }

  /** Drops queued tasks without running them (a crash before they ran). */
  synchronized void discardAll() {
    tasks.clear();
  }

  private synchronized Runnable poll() {
    return tasks.poll();
  }
}
