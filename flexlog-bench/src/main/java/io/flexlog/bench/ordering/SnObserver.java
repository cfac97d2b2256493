package io.flexlog.bench.ordering;

/**
 * Sees every SN a load client receives, in arrival order; tests use it to check that SNs are unique
 * across clients. Called on the client's thread, once per SN, so implementations must be
 * thread-safe and fast; {@link #NONE} in real runs.
 */
@FunctionalInterface
interface SnObserver {
  SnObserver NONE = (client, sn) -> {};

  void onSn(int client, long sn);
}
