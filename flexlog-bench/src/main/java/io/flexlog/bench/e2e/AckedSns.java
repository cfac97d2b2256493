package io.flexlog.bench.e2e;

import java.util.Arrays;

/**
 * The SN each append of one producer was acknowledged with, indexed by the producer's sequence
 * number; {@link #NOT_ACKED} for an append that failed or has not completed. A primitive array that
 * doubles when full, so recording an ack allocates nothing in steady state.
 *
 * <p>Threading: written by whichever thread completes an append (the client's event loop), read by
 * the benchmark's controlling thread after the producer drained; every method is synchronized (the
 * lock is uncontended: one producer, one completion at a time).
 */
final class AckedSns {
  static final long NOT_ACKED = -1;

  private long[] sns = new long[1024];
  private long count;

  AckedSns() {
    Arrays.fill(sns, NOT_ACKED);
  }

  synchronized void ack(long sequence, long sn) {
    if (sequence >= Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("more appends than one producer can track: " + sequence);
    }
    int i = (int) sequence;
    if (i >= sns.length) {
      int old = sns.length;
      sns = Arrays.copyOf(sns, Math.max(i + 1, old * 2));
      Arrays.fill(sns, old, sns.length, NOT_ACKED);
    }
    sns[i] = sn;
    count++;
  }

  /** The SN the append was acknowledged with, or {@link #NOT_ACKED}. */
  synchronized long snOf(long sequence) {
    return sequence < 0 || sequence >= sns.length ? NOT_ACKED : sns[(int) sequence];
  }

  /** Appends acknowledged so far. */
  synchronized long count() {
    return count;
  }
}
