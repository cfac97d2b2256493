package io.flexlog.client.consumer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The consumer's asynchronous commits: finished commits' callbacks wait here until the polling
 * thread runs them (as Kafka's consumer does), and auto-commit keeps its own clock.
 */
final class CommitCallbacks {
  private final ConcurrentLinkedQueue<Runnable> done = new ConcurrentLinkedQueue<>();
  private final long autoCommitIntervalNs;
  private long nextAutoCommitNs;

  CommitCallbacks(Duration autoCommitInterval) {
    this.autoCommitIntervalNs = autoCommitInterval.toNanos();
    this.nextAutoCommitNs = System.nanoTime() + autoCommitIntervalNs;
  }

  /** Queues {@code callback} (if any) for when {@code commit} ends. */
  void track(
      CompletableFuture<Void> commit, Map<ColorShard, Long> positions, CommitCallback callback) {
    commit.whenComplete(
        (v, e) -> {
          if (callback != null) {
            Exception error = e == null ? null : Futures.unwrap(e);
            done.add(() -> callback.onComplete(positions, error));
          }
        });
  }

  /** True once per auto.commit.interval.ms. */
  boolean autoCommitDue(long nowNs) {
    if (nowNs - nextAutoCommitNs < 0) {
      return false;
    }
    nextAutoCommitNs = nowNs + autoCommitIntervalNs;
    return true;
  }

  /** Runs the callbacks of the commits that ended; on the polling thread. */
  void run() {
    Runnable r;
    while ((r = done.poll()) != null) {
      r.run();
    }
  }
}
