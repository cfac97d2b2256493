package io.flexlog.client.internals;

/** A clock that moves only when the test says so. */
final class ManualClock implements NanoClock {
  private long nowNs = 1_000_000_000L;

  @Override
  public long nanoTime() {
    return nowNs;
  }

  void advance(long ns) {
    nowNs += ns;
  }
}
