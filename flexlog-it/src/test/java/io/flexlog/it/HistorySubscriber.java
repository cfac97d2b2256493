package io.flexlog.it;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.it.history.History;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Follows one color from SN 0 on its own thread and records every delivery in a {@link History}; a
 * subscription that fails is opened again after the last SN it delivered, recorded as a new
 * subscriber (the history checker holds each to the range it covered).
 */
final class HistorySubscriber {
  private final String name;
  private final String color;
  private final History history;
  private final FlexLogConfig config;
  private final Collection<Throwable> failures;
  private final AtomicLong lastSn = new AtomicLong();
  private final AtomicBoolean done = new AtomicBoolean();
  private final CountDownLatch finished = new CountDownLatch(1);

  /**
   * Starts following {@code color} on a daemon thread named {@code name}; {@link #awaitAtLeast}
   * gives up early once {@code failures} is not empty.
   */
  static HistorySubscriber start(
      String name,
      String color,
      History history,
      FlexLogConfig config,
      Collection<Throwable> failures) {
    HistorySubscriber s = new HistorySubscriber(name, color, history, config, failures);
    Thread t = new Thread(s::run, name);
    t.setDaemon(true);
    t.start();
    return s;
  }

  private HistorySubscriber(
      String name,
      String color,
      History history,
      FlexLogConfig config,
      Collection<Throwable> failures) {
    this.name = name;
    this.color = color;
    this.history = history;
    this.config = config;
    this.failures = failures;
  }

  private void run() {
    try {
      long from = 0;
      for (int attempt = 0; !done.get(); attempt++) {
        History.Subscriber recorded =
            history.subscriber(attempt == 0 ? name : name + "#" + attempt, color, from);
        try (FlexLog log = FlexLog.connect(config);
            RecordStream stream = log.subscribe(color, from)) {
          while (!done.get()) {
            LogRecord record = stream.poll(Duration.ofMillis(100));
            if (record != null) {
              recorded.delivered(record.sn(), record.payload());
              lastSn.set(record.sn());
            }
          }
          recorded.complete();
        } catch (RuntimeException e) {
          System.err.println("[test] subscriber " + name + " resubscribes after: " + e);
          from = lastSn.get() + 1;
        }
      }
    } finally {
      finished.countDown();
    }
  }

  /** The color it follows. */
  String color() {
    return color;
  }

  /** The last SN delivered, 0 before the first. */
  long lastSn() {
    return lastSn.get();
  }

  /**
   * Waits until an SN at or above {@code sn} was delivered (at most {@code timeout}, less if a
   * failure is recorded), then stops the subscription and waits for its thread to end.
   */
  void awaitAtLeast(long sn, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (lastSn.get() < sn && System.nanoTime() < deadline && failures.isEmpty()) {
      Thread.sleep(20);
    }
    stop();
  }

  /** Stops the subscription and waits for its thread to end. */
  void stop() throws InterruptedException {
    done.set(true);
    finished.await();
  }
}
