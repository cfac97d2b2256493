package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordHandler;
import io.flexlog.client.Subscription;
import io.flexlog.core.error.FlexLogException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subscription that pushes records to a {@link RecordHandler} from its own daemon thread, so that
 * a slow handler delays only its own subscription, never the client's event loop.
 */
public final class HandlerSubscription implements Subscription {
  private static final Logger LOG = LoggerFactory.getLogger(HandlerSubscription.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ClientSubscription stream;
  private final RecordHandler handler;
  private final Thread thread;

  HandlerSubscription(ClientSubscription stream, RecordHandler handler) {
    this.stream = stream;
    this.handler = handler;
    this.thread =
        new Thread(
            this::run, "flexlog-subscription-" + stream.color() + "-" + THREADS.incrementAndGet());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    while (true) {
      LogRecord record;
      try {
        record = stream.take(-1);
      } catch (FlexLogException e) {
        report(e);
        return;
      } catch (InterruptedException e) {
        stream.close();
        return;
      }
      if (record == null) {
        return;
      }
      try {
        handler.onRecord(record);
      } catch (RuntimeException e) {
        stream.close();
        report(
            new FlexLogException(
                "the record handler of the subscription to '"
                    + stream.color()
                    + "' failed at SN "
                    + record.sn()
                    + "; the subscription is closed",
                e));
        return;
      }
    }
  }

  private void report(FlexLogException error) {
    try {
      handler.onError(error);
    } catch (RuntimeException e) {
      LOG.warn("onError of the subscription to '{}' threw", stream.color(), e);
    }
  }

  @Override
  public String color() {
    return stream.color();
  }

  @Override
  public long lastSn() {
    return stream.lastSn();
  }

  @Override
  public boolean isClosed() {
    return stream.isClosed();
  }

  /**
   * Stops the subscription and, unless called from the handler itself, waits until the handler's
   * current call (if any) has returned: after this no record reaches the handler.
   */
  @Override
  public void close() {
    stream.close();
    if (Thread.currentThread() != thread) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
