package io.flexlog.replica.replication;

/**
 * The time and size marks of one color on this replica (docs/architecture.md#retention): samples
 * {@code (time, SN, bytes)}, each saying that by {@code time} every SN of the color up to {@code
 * SN} was decided here (committed or a hole) and that the committed records of the color up to it
 * held {@code bytes} payload bytes in all (counted since this process started). Oldest first, in
 * primitive arrays; when full, every other sample is dropped (coarser marks, never wrong ones).
 *
 * <p>Not thread-safe: the replica's event loop.
 */
final class RetentionSamples {
  static final int CAPACITY = 1024;

  private final long[] nanos = new long[CAPACITY];
  private final long[] sns = new long[CAPACITY];
  private final long[] bytes = new long[CAPACITY];
  private int count;

  /** The bytes of the newest sample dropped: about what lies at or below the trim point. */
  private long trimmedBytes;

  int size() {
    return count;
  }

  long lastNanos() {
    return nanos[count - 1];
  }

  long lastSn() {
    return count == 0 ? 0 : sns[count - 1];
  }

  long lastBytes() {
    return bytes[count - 1];
  }

  void add(long atNanos, long sn, long totalBytes) {
    if (count == CAPACITY) {
      thin();
    }
    nanos[count] = atNanos;
    sns[count] = sn;
    bytes[count] = totalBytes;
    count++;
  }

  /**
   * The largest SN of a sample taken at or before {@code cutoffNanos}, or 0 if none: every record
   * up to it was decided here before the cutoff.
   */
  long snDecidedBy(long cutoffNanos) {
    long sn = 0;
    for (int i = 0; i < count && nanos[i] - cutoffNanos <= 0; i++) {
      sn = sns[i];
    }
    return sn;
  }

  /**
   * The smallest SN of a sample such that the records after it hold at most {@code limit} bytes of
   * the {@code totalBytes} counted so far, or 0 if the records above the trim point already hold no
   * more than that, or if no sample leaves that little.
   */
  long snKeepingAtMost(long totalBytes, long limit) {
    if (totalBytes - trimmedBytes <= limit) {
      return 0;
    }
    for (int i = 0; i < count; i++) {
      if (totalBytes - bytes[i] <= limit) {
        return sns[i];
      }
    }
    return 0;
  }

  /** Forgets the samples at or below {@code sn} (they are trimmed). */
  void dropThrough(long sn) {
    int drop = 0;
    while (drop < count && sns[drop] <= sn) {
      drop++;
    }
    if (drop > 0) {
      trimmedBytes = bytes[drop - 1];
      System.arraycopy(nanos, drop, nanos, 0, count - drop);
      System.arraycopy(sns, drop, sns, 0, count - drop);
      System.arraycopy(bytes, drop, bytes, 0, count - drop);
      count -= drop;
    }
  }

  // Keeps the samples at odd positions from the end, the newest among them.
  private void thin() {
    int kept = 0;
    for (int i = (count - 1) % 2; i < count; i += 2) {
      nanos[kept] = nanos[i];
      sns[kept] = sns[i];
      bytes[kept] = bytes[i];
      kept++;
    }
    count = kept;
  }
}
