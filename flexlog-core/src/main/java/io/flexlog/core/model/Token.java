package io.flexlog.core.model;

/**
 * The 128-bit idempotency key of an append: a random 64-bit client session id and a 64-bit
 * per-session counter. Retries reuse the token; replicas and sequencers deduplicate by it.
 *
 * <p>Hot paths carry tokens as two {@code long}s; this record is for APIs and tests.
 */
public record Token(long session, long sequence) {
  @Override
  public String toString() {
    return Long.toHexString(session) + ":" + sequence;
  }
}
