package io.flexlog.bench.load;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/** An appender whose appends complete only when the test says so. Single-threaded. */
final class ManualAppender implements AsyncAppender {
  private final Deque<CompletableFuture<Long>> outstanding = new ArrayDeque<>();
  private int issued;
  private long nextSn = 1;

  @Override
  public CompletableFuture<Long> append(byte[] payload) {
    issued++;
    CompletableFuture<Long> future = new CompletableFuture<>();
    outstanding.add(future);
    return future;
  }

  int issued() {
    return issued;
  }

  int outstanding() {
    return outstanding.size();
  }

  void succeed() {
    outstanding.remove().complete(nextSn++);
  }

  void fail(Throwable error) {
    outstanding.remove().completeExceptionally(error);
  }
}
