package io.flexlog.client.internals;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's append tokens: one random session per client and a sequence shared by plain appends
 * and the members of atomic groups, so that no two records of this client share a token (the
 * replicas deduplicate retries by token). Thread-safe.
 */
final class Tokens {
  private final long session;
  private final AtomicLong sequence = new AtomicLong();

  Tokens(long session) {
    this.session = session;
  }

  long session() {
    return session;
  }

  /** The next sequence of this session, from 1 on. */
  long next() {
    return sequence.incrementAndGet();
  }

  /** The first of {@code count} consecutive sequences of this session, for one batch. */
  long next(int count) {
    return sequence.getAndAdd(count) + 1;
  }
}
