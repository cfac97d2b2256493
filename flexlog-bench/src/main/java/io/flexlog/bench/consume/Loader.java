package io.flexlog.bench.consume;

import io.flexlog.client.FlexLog;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Appends records with many in flight; each payload starts with its send time (nanoTime). */
final class Loader {
  private static final int IN_FLIGHT = 1024;

  private Loader() {}

  /** Appends {@code count} records and waits for all; returns the last SN. */
  static long load(FlexLog log, String color, int count, int recordBytes)
      throws InterruptedException {
    Semaphore permits = new Semaphore(IN_FLIGHT);
    AtomicLong last = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int i = 0; i < count && failure.get() == null; i++) {
      permits.acquire();
      log.appendAsync(color, payload(recordBytes))
          .whenComplete(
              (sn, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, e);
                } else {
                  last.accumulateAndGet(sn, Math::max);
                }
                permits.release();
              });
    }
    permits.acquire(IN_FLIGHT);
    if (failure.get() != null) {
      throw new IllegalStateException("loading failed: " + failure.get(), failure.get());
    }
    return last.get();
  }

  static byte[] payload(int recordBytes) {
    byte[] payload = new byte[recordBytes];
    ByteBuffer.wrap(payload).putLong(System.nanoTime());
    return payload;
  }

  static long sentNs(byte[] payload) {
    return ByteBuffer.wrap(payload).getLong();
  }
}
