package io.flexlog.bench.storage;

import java.util.SplittableRandom;

/**
 * One thread's operation mix over its {@link RecordLog}: each step is a read with probability
 * {@code readPercent}%, of a record chosen uniformly among those in the log (written so far and not
 * trimmed; at most the newest {@code readWindow}), and otherwise an append of the next record. A
 * read copies the record into a reusable array and checks its key stamp and length, so a read path
 * that returns the wrong bytes fails the run instead of counting.
 *
 * <p>Threading: one owner thread. Steady state allocates nothing here (the engines may).
 */
public final class Workload {
  private final RecordLog log;
  private final RecordPattern pattern;
  private final int thread;
  private final int readPercent;
  private final SplittableRandom random;
  private final byte[] readBuffer;
  private final long readWindow;

  /**
   * @param readPercent 0 to 100
   * @param seed for the operation choices and read positions
   */
  public Workload(RecordLog log, RecordPattern pattern, int thread, int readPercent, long seed) {
    this(log, pattern, thread, readPercent, seed, Long.MAX_VALUE);
  }

  /**
   * @param readWindow reads pick among at most this many of the newest records in the log, so that
   *     engines that keep different amounts of old records read over equal key ranges
   */
  public Workload(
      RecordLog log,
      RecordPattern pattern,
      int thread,
      int readPercent,
      long seed,
      long readWindow) {
    if (readWindow < 1) {
      throw new IllegalArgumentException("readWindow must be positive, got " + readWindow);
    }
    this.readWindow = readWindow;
    if (readPercent < 0 || readPercent > 100) {
      throw new IllegalArgumentException("readPercent must be 0..100, got " + readPercent);
    }
    this.log = log;
    this.pattern = pattern;
    this.thread = thread;
    this.readPercent = readPercent;
    this.random = new SplittableRandom(seed);
    this.readBuffer = new byte[pattern.recordBytes()];
  }

  /** Performs one operation. */
  public Operation step() {
    long first = Math.max(log.firstRecord(), log.written() - readWindow);
    long live = log.written() - first;
    if (readPercent > 0 && live > 0 && random.nextInt(100) < readPercent) {
      long recordNumber = first + random.nextLong(live);
      int length = log.read(recordNumber, readBuffer);
      long expected = RecordPattern.key(thread, recordNumber);
      if (length != readBuffer.length || RecordPattern.stampedKey(readBuffer) != expected) {
        throw new IllegalStateException(mismatch(recordNumber, length));
      }
      return Operation.READ;
    }
    return log.append() ? Operation.APPEND : Operation.LOG_FULL;
  }

  /**
   * Reads back up to {@code samples} records spread evenly over those in the log, the first and
   * last included, and compares every byte with what was written.
   *
   * @return how many records were checked
   * @throws IllegalStateException naming the first record that differs
   */
  public int verify(int samples) {
    long first = log.firstRecord();
    long live = log.written() - first;
    if (live == 0 || samples <= 0) {
      return 0;
    }
    int checked = 0;
    long count = Math.min(samples, live);
    for (long i = 0; i < count; i++) {
      long recordNumber = first + (count == 1 ? live - 1 : i * (live - 1) / (count - 1));
      int length = log.read(recordNumber, readBuffer);
      if (!pattern.matches(readBuffer, length, RecordPattern.key(thread, recordNumber))) {
        throw new IllegalStateException(mismatch(recordNumber, length));
      }
      checked++;
    }
    return checked;
  }

  private String mismatch(long recordNumber, int length) {
    return "thread "
        + thread
        + " read record "
        + recordNumber
        + " back wrong: "
        + length
        + " bytes with key "
        + (length >= Long.BYTES ? RecordPattern.stampedKey(readBuffer) : -1)
        + ", expected "
        + readBuffer.length
        + " bytes with key "
        + RecordPattern.key(thread, recordNumber)
        + " and the written bytes";
  }
}
