package io.flexlog.client.internals;

import io.netty.util.collection.IntObjectHashMap;
import java.util.Random;

/**
 * When to send again what waited on a lost connection (docs/architecture.md#append, "Failures"):
 * {@link #BASE_NS} after a node's connection is lost, doubling with each further loss that follows
 * the previous one within {@link #QUIET_NS}, at most {@link #MAX_NS} and never later than the
 * request timeout would have, with up to 20% of jitter either way so that the clients of a node
 * that restarted do not all come back in the same instant. These are Kafka's {@code
 * reconnect.backoff.ms} and {@code reconnect.backoff.max.ms} defaults. The re-send itself makes the
 * connection again ({@code QueuedConnection} connects on the next write), so a node that is still
 * down costs one failed connect per backoff.
 *
 * <p>Threading: loop-confined.
 */
final class ReconnectBackoff {
  static final long BASE_NS = 50_000_000L;
  static final long MAX_NS = 1_000_000_000L;

  /** A loss this long after the previous one starts again from {@link #BASE_NS}. */
  static final long QUIET_NS = 2 * MAX_NS;

  private static final double JITTER = 0.2;

  private final long maxNs;
  private final Random random;
  private final IntObjectHashMap<Losses> byNode = new IntObjectHashMap<>();

  /**
   * @param requestTimeoutNs the longest backoff: a lost request is never sent again later than its
   *     request timeout would have sent it
   * @param random the jitter (seeded by the simulation)
   */
  ReconnectBackoff(long requestTimeoutNs, Random random) {
    this.maxNs = Math.min(MAX_NS, requestTimeoutNs);
    this.random = random;
  }

  /**
   * Counts a loss of the connection to {@code nodeId} at {@code nowNs}; returns the re-send time.
   */
  long onLost(int nodeId, long nowNs) {
    Losses losses = byNode.get(nodeId);
    if (losses == null) {
      losses = new Losses();
      byNode.put(nodeId, losses);
    }
    if (losses.count > 0 && nowNs - losses.lastNs > QUIET_NS) {
      losses.count = 0;
    }
    losses.count++;
    losses.lastNs = nowNs;
    long delay = BASE_NS << Math.min(losses.count - 1, 20);
    delay = Math.min(delay, maxNs);
    double jitter = 1 + JITTER * (2 * random.nextDouble() - 1);
    return nowNs + Math.min(maxNs, (long) (delay * jitter));
  }

  /** Consecutive losses of one node's connection. */
  private static final class Losses {
    int count;
    long lastNs;
  }
}
