package io.flexlog.replica.storage;

import io.netty.buffer.Unpooled;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * Child process of {@link LogStorageCrashTest}: recovers the log, reports what it found, then
 * appends and commits deterministic entries until it is killed. Lines on stdout (each ends with
 * {@code ;} so a line cut by the kill is recognisable):
 *
 * <ul>
 *   <li>{@code R seq sn ok|bad;} an entry recovered at start, with its payload checked against the
 *       deterministic bytes of its token sequence
 *   <li>{@code READY nextSeq;} recovery done
 *   <li>{@code P seq;} the pending entry is durable (printed after {@code flush()} returned)
 *   <li>{@code A seq sn;} the commit is durable (printed after {@code flush()} returned)
 *   <li>{@code FULL;} the log is full; the process then idles
 * </ul>
 *
 * Each batch appends new entries and commits the previous batch's, so commits also hit entries
 * written before the last flush, and a kill can leave flushed entries pending.
 */
public final class CrashWriterMain {
  static final long SESSION = 0xC0FFEEL;
  static final int SHARD = 5;
  static final int COLOR = 2;
  static final int MAX_PAYLOAD = 1024;

  private CrashWriterMain() {}

  static long sn(long seq) {
    return (3L << 32) | (seq + 1);
  }

  static byte[] payload(long seq) {
    return TestPayloads.bytes(seq, TestPayloads.length(seq, MAX_PAYLOAD));
  }

  public static void main(String[] args) {
    String engine = args[0];
    Path dir = Path.of(args[1]);
    long capacity = Long.parseLong(args[2]);
    long chunkBytes = Long.parseLong(args[3]);
    Random random = new Random(Long.parseLong(args[4]));
    PrintStream out =
        new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false);
    LogStorage log = StorageEngines.open(engine, dir, capacity, chunkBytes, DurabilityMode.PROCESS);
    long[] nextSeq = {0};
    java.util.List<long[]> recoveredPending = new java.util.ArrayList<>();
    log.recover(
        (address, shard, color, session, seq, sn, length) -> {
          boolean ok =
              shard == SHARD
                  && color == COLOR
                  && session == SESSION
                  && (sn == 0 || sn == sn(seq))
                  && Arrays.equals(TestPayloads.copy(log.payload(address)), payload(seq));
          out.println("R " + seq + " " + sn + " " + (ok ? "ok" : "bad") + ";");
          nextSeq[0] = Math.max(nextSeq[0], seq + 1);
          if (sn == 0) {
            recoveredPending.add(new long[] {address, seq});
          }
        });
    out.println("READY " + nextSeq[0] + ";");
    out.flush();
    long seq = nextSeq[0];
    // Recovered pending entries are committed first, as a replica re-issues their order requests.
    int committing = recoveredPending.size();
    long[] pendingAddresses = new long[Math.max(16, committing)];
    long[] pendingSeqs = new long[Math.max(16, committing)];
    for (int i = 0; i < committing; i++) {
      pendingAddresses[i] = recoveredPending.get(i)[0];
      pendingSeqs[i] = recoveredPending.get(i)[1];
    }
    long[] batchAddresses = new long[16];
    long[] batchSeqs = new long[16];
    while (true) {
      int size = 1 + random.nextInt(8);
      int appended = 0;
      boolean full = false;
      for (int i = 0; i < size; i++) {
        long address =
            log.appendPending(SHARD, COLOR, SESSION, seq, Unpooled.wrappedBuffer(payload(seq)));
        if (address == LogStorage.NO_SPACE) {
          full = true;
          break;
        }
        batchAddresses[appended] = address;
        batchSeqs[appended++] = seq++;
      }
      for (int i = 0; i < committing; i++) {
        log.commit(pendingAddresses[i], sn(pendingSeqs[i]));
      }
      log.flush();
      for (int i = 0; i < appended; i++) {
        out.println("P " + batchSeqs[i] + ";");
      }
      for (int i = 0; i < committing; i++) {
        out.println("A " + pendingSeqs[i] + " " + sn(pendingSeqs[i]) + ";");
      }
      if (full) {
        out.println("FULL;");
      }
      out.flush();
      pendingAddresses = Arrays.copyOf(batchAddresses, Math.max(16, appended));
      pendingSeqs = Arrays.copyOf(batchSeqs, Math.max(16, appended));
      committing = appended;
      while (full) {
        LockSupport.park(); // idle until killed
      }
      LockSupport.parkNanos(random.nextInt(300_000));
    }
  }
}
