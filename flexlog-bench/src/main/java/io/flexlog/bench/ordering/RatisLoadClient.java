package io.flexlog.bench.ordering;

import io.flexlog.bench.load.Errors;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;

/**
 * One load client of the Ratis counter: keeps {@code window} SNs outstanding through Ratis' ordered
 * async API. With {@link RatisRequests#SINGLE} each request asks for one SN and the next is issued
 * as soon as one is answered; with {@link RatisRequests#BATCHED} the window goes out as one request
 * and each reply's SNs are replaced by one request for as many, like FlexLog's load clients.
 * Latency is from {@code send} to the reply, the same for every SN of a request.
 *
 * <p>Threading: replies complete on Ratis' client threads; the client's fields are guarded by its
 * monitor. Sends happen outside it, so a reply that completes synchronously cannot re-enter a held
 * lock.
 */
final class RatisLoadClient implements AutoCloseable {
  private final int index;
  private final RaftClient client;
  private final int window;
  private final RatisRequests requests;
  private final LoadControl control;
  private final SnObserver observer;
  private final ClientStats stats = new ClientStats();
  private int outstanding;
  private boolean done;

  RatisLoadClient(
      int index,
      RaftClient client,
      int window,
      RatisRequests requests,
      LoadControl control,
      SnObserver observer) {
    this.index = index;
    this.client = client;
    this.window = window;
    this.requests = requests;
    this.control = control;
    this.observer = observer;
  }

  /**
   * Sends one increment and waits for its answer: the group has a leader and this client a working
   * connection afterwards.
   */
  void probe(Duration timeout) throws LoadFailure, InterruptedException {
    long issueNs = control.nanoTime();
    try {
      RaftClientReply reply =
          client
              .async()
              .send(CounterStateMachine.INCREMENT)
              .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      onReply(issueNs, 1, false, reply, null, false);
    } catch (ExecutionException e) {
      throw new LoadFailure(describe(e.getCause()), e.getCause());
    } catch (TimeoutException e) {
      throw new LoadFailure(
          "ratis client " + index + ": no answer within " + timeout.toSeconds() + " s");
    }
    if (control.failure().isPresent()) {
      throw new LoadFailure(control.failure().get());
    }
  }

  /** Issues the window. */
  void start() {
    if (requests == RatisRequests.BATCHED) {
      issue(window);
      return;
    }
    for (int i = 0; i < window; i++) {
      issue(1);
    }
  }

  /** Sends one request for {@code count} SNs. */
  private void issue(int count) {
    synchronized (this) {
      if (done) {
        return;
      }
      if (!control.mayIssue()) {
        finishIfDrained();
        return;
      }
      outstanding++;
    }
    boolean measured = control.isMeasuring();
    long issueNs = control.nanoTime();
    CompletableFuture<RaftClientReply> reply;
    try {
      Message increment =
          count == 1 ? CounterStateMachine.INCREMENT : CounterStateMachine.increment(count);
      reply = client.async().send(increment);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete((r, error) -> onReply(issueNs, count, measured, r, error, true));
  }

  private void onReply(
      long issueNs,
      int count,
      boolean measured,
      RaftClientReply reply,
      Throwable error,
      boolean loop) {
    long now = control.nanoTime();
    String failure = null;
    synchronized (this) {
      if (loop) {
        outstanding--;
      }
      if (error != null) {
        failure = describe(error);
      } else if (!reply.isSuccess()) {
        failure = "ratis client " + index + ": request failed: " + reply.getException();
      } else {
        long last = CounterStateMachine.decode(reply.getMessage());
        for (long sn = last - count + 1; sn <= last; sn++) {
          stats.onAnswer(sn, measured, now - issueNs, now);
          observer.onSn(index, sn);
        }
      }
    }
    if (failure != null) {
      control.fail(failure);
    } else {
      control.onCompleted(count, measured ? count : 0);
    }
    if (loop) {
      issue(count);
    }
  }

  private void finishIfDrained() {
    if (outstanding == 0 && !done) {
      done = true;
      control.onClientIdle();
    }
  }

  synchronized ClientStats snapshot() {
    return stats.copy();
  }

  private String describe(Throwable error) {
    return "ratis client " + index + ": " + Errors.unwrap(error);
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException e) {
      // The run is over; a client that cannot close cleanly changes nothing in the results.
    }
  }
}
