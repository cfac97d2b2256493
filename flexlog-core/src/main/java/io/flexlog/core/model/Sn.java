package io.flexlog.core.model;

/**
 * Sequence numbers: the 64-bit position of a record in its color, {@code epoch << 32 | counter}.
 *
 * <p>The epoch is the generation of the sequencer role that issued the SN; every restart or
 * failover bumps it, so SNs issued after a restart are larger than every SN issued before. Within
 * an epoch the counter starts at 1, so {@link #NONE} (0) is never a valid SN.
 */
public final class Sn {
  /** No SN: a pending entry, or "nothing yet". */
  public static final long NONE = 0L;

  /** The largest counter an epoch can issue before the role must move to the next epoch. */
  public static final long MAX_COUNTER = 0xFFFF_FFFFL;

  private Sn() {}

  public static long of(int epoch, long counter) {
    if (counter < 0 || counter > MAX_COUNTER) {
      throw new IllegalArgumentException("counter out of range: " + counter);
    }
    return ((long) epoch << 32) | counter;
  }

  public static int epoch(long sn) {
    return (int) (sn >>> 32);
  }

  public static long counter(long sn) {
    return sn & MAX_COUNTER;
  }

  /** Human-readable form, {@code epoch.counter}, for logs; SNs on the CLI stay plain numbers. */
  public static String describe(long sn) {
    return Integer.toUnsignedString(epoch(sn)) + "." + counter(sn);
  }
}
