package io.flexlog.client.consumer.internals;

/**
 * A wake-up flag for one waiting thread and any number of signalling threads (the client's event
 * loop when records arrive, an application thread calling wakeup). A signal raised before the wait
 * is not lost.
 */
public final class Signal {
  private boolean raised;

  /** Wakes the waiter, or the next one to wait. */
  public synchronized void raise() {
    raised = true;
    notifyAll();
  }

  /**
   * Waits up to {@code timeoutNs} for a signal and clears it.
   *
   * @return true if a signal came
   */
  public synchronized boolean await(long timeoutNs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNs;
    while (!raised) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(left / 1_000_000, (int) (left % 1_000_000));
    }
    raised = false;
    return true;
  }
}
