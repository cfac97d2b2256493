package io.flexlog.replica.storage.tier;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.TestPayloads;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * Child process of {@link LogStorageCrashTest}: opens the tiered storage over a small PM log (so
 * that it moves chunks to SSD segments all the time), recovers, reports what it found, then
 * appends, commits and trims deterministic entries until it is killed. Lines on stdout (each ends
 * with {@code ;} so a line cut by the kill is recognisable):
 *
 * <ul>
 *   <li>{@code R seq sn ok|bad;} an entry recovered at start, with its payload checked against the
 *       deterministic bytes of its token sequence
 *   <li>{@code READY nextSeq trimPoint segments;} recovery done: the color's durable trim point and
 *       the number of SSD segments found
 *   <li>{@code P seq;} the pending entry is durable (printed after {@code flush()} returned)
 *   <li>{@code A seq sn;} the commit is durable (printed after {@code flush()} returned)
 *   <li>{@code T sn;} the trim point is durable (printed after {@code trim()} returned)
 * </ul>
 *
 * Each batch appends new entries and commits the previous batch's, so commits also hit entries
 * written before the last flush, and a kill can leave flushed entries pending. Every few batches it
 * trims the color to an SN a few hundred entries back, so segments and chunks are reclaimed while
 * tiering runs; a kill can land in the middle of writing a segment, between its fsync and the PM
 * free, or in a trim.
 */
public final class CrashWriterMain {
  static final long SESSION = 0xC0FFEEL;
  static final int SHARD = 5;
  static final int COLOR = 2;
  static final int MAX_PAYLOAD = 1024;
  static final int TRIM_EVERY_BATCHES = 64;
  // About 1.5 MiB of entries stay untrimmed: well above the tiering watermark of either PM log.
  static final int KEEP_UNTRIMMED = 3000;

  private CrashWriterMain() {}

  static long sn(long seq) {
    return (3L << 32) | (seq + 1);
  }

  static byte[] payload(long seq) {
    return TestPayloads.bytes(seq, TestPayloads.length(seq, MAX_PAYLOAD));
  }

  /** The tiered storage the child and the test agree on: PM in {@code dir}, segments below it. */
  static TieredLogStorage open(String engine, Path dir, long capacity, long chunkBytes) {
    TieredStorageConfig config =
        new TieredStorageConfig(1 << 20, 0.1, dir.resolve("segments"), 2 * chunkBytes);
    return StorageEngines.openTiered(
        engine,
        dir,
        capacity,
        chunkBytes,
        DurabilityMode.PROCESS,
        config,
        new SimpleMeterRegistry(),
        Tags.empty());
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
    TieredLogStorage log = open(engine, dir, capacity, chunkBytes);
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
    out.println(
        "READY " + nextSeq[0] + " " + log.trimPoint(COLOR) + " " + log.segmentCount() + ";");
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
    long durablyCommitted = -1; // highest seq whose commit is durable
    for (long batch = 0; ; batch++) {
      int size = 1 + random.nextInt(8);
      int appended = 0;
      while (appended < size) {
        long address =
            log.appendPending(SHARD, COLOR, SESSION, seq, Unpooled.wrappedBuffer(payload(seq)));
        if (address == LogStorage.NO_SPACE) {
          if (appended > 0) {
            break; // commit what this batch has, tiering frees PM meanwhile
          }
          log.flush();
          LockSupport.parkNanos(1_000_000);
          continue;
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
        durablyCommitted = Math.max(durablyCommitted, pendingSeqs[i]);
      }
      if (batch % TRIM_EVERY_BATCHES == TRIM_EVERY_BATCHES - 1
          && durablyCommitted > KEEP_UNTRIMMED) {
        long trimSn = sn(durablyCommitted - KEEP_UNTRIMMED);
        log.trim(COLOR, trimSn);
        out.println("T " + trimSn + ";");
      }
      out.flush();
      pendingAddresses = Arrays.copyOf(batchAddresses, Math.max(16, appended));
      pendingSeqs = Arrays.copyOf(batchSeqs, Math.max(16, appended));
      committing = appended;
      LockSupport.parkNanos(random.nextInt(300_000));
    }
  }
}
