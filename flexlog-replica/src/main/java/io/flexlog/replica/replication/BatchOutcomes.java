package io.flexlog.replica.replication;

import java.util.Arrays;

/**
 * The outcomes of some records of one APPEND_BATCH that go into one APPEND_BATCH_ACK: per record
 * its token sequence and either its SN or an error code. One instance is reused for every frame, so
 * acknowledging a batch allocates nothing once the arrays have grown.
 *
 * <p>Not thread-safe: owned by the replica's event loop.
 */
final class BatchOutcomes {
  private long[] sequences = new long[64];
  private long[] sns = new long[64];
  private int[] codes = new int[64];
  private int count;

  void clear() {
    count = 0;
  }

  int count() {
    return count;
  }

  void committed(long sequence, long sn) {
    add(sequence, sn, 0);
  }

  /** A refused record; {@code code} is an {@code ErrorCode} wire value. */
  void refused(long sequence, int code) {
    add(sequence, 0, code);
  }

  long sequence(int i) {
    return sequences[i];
  }

  long sn(int i) {
    return sns[i];
  }

  int code(int i) {
    return codes[i];
  }

  private void add(long sequence, long sn, int code) {
    if (count == sequences.length) {
      sequences = Arrays.copyOf(sequences, count * 2);
      sns = Arrays.copyOf(sns, count * 2);
      codes = Arrays.copyOf(codes, count * 2);
    }
    sequences[count] = sequence;
    sns[count] = sn;
    codes[count] = code;
    count++;
  }
}
