package io.flexlog.replica.storage.tier;

import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.TrimPoints;
import io.flexlog.replica.storage.segment.ChunkImage;
import io.flexlog.replica.storage.segment.Segment;
import io.flexlog.replica.storage.segment.SegmentStore;
import io.flexlog.replica.storage.segment.SegmentWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tiering of a {@link TieredLogStorage} (docs/architecture.md#ssd-segments): when PM use passes
 * its high watermark (or PM is full), hands the oldest sealed chunks to the tiering thread, which
 * copies them into one fsync'ed segment file; the owner then installs the segment and frees the
 * chunks ({@link #applyFinished}), or, after a failure, keeps them in PM and retries a second
 * later. It also deletes trimmed segments on the tiering thread and owns that thread's lifecycle
 * and the storage's closed flag.
 *
 * <p>Threading: as the storage's contract says. Every method but the copy runs on the owner thread;
 * the copy reads only the chunks it was handed and hands its result back through a queue,
 * optionally waking the owner ({@link #wakeOwnerWith}). Logs under the {@code TieredLogStorage}
 * logger, so that one logger setting covers all of the storage's lines.
 */
final class SegmentTiering {
  private static final Logger LOG = LoggerFactory.getLogger(TieredLogStorage.class);
  private static final long RETRY_AFTER_FAILURE_NS = TimeUnit.SECONDS.toNanos(1);

  private final TierableLog pm;
  private final SegmentStore segments;
  private final TierMetrics metrics;
  private final long highWatermarkBytes;
  private final long segmentBytes;
  private final Executor tieringThread;
  private final ExecutorService ownedTieringThread;
  private final LongSupplier nanoClock;
  private final Runnable publishMetrics;
  private final SegmentWriter writer = new SegmentWriter();
  private final Queue<TieringResult> finished = new ConcurrentLinkedQueue<>();
  private final Runnable ownerCatchUp = this::catchUp;
  private volatile Executor ownerWakeup;

  private final int[] tieringChunks;
  private int tieringCount;
  private boolean retryAfterFailure;
  private long retryAfterNs;
  // Volatile: the tiering thread checks it before it touches PM (relevant for injected executors;
  // close() waits for its own tiering thread).
  private volatile boolean closed;

  /**
   * @param ownedTieringThread {@code tieringThread} when the storage created it (shut down on
   *     close), else null
   * @param publishMetrics publishes the storage's gauges; run after a catch-up on the owner thread
   */
  SegmentTiering(
      TierableLog pm,
      SegmentStore segments,
      TierMetrics metrics,
      TieredStorageConfig config,
      Executor tieringThread,
      ExecutorService ownedTieringThread,
      LongSupplier nanoClock,
      Runnable publishMetrics) {
    this.pm = pm;
    this.segments = segments;
    this.metrics = metrics;
    this.highWatermarkBytes = (long) (config.pmHighWatermark() * pm.capacityBytes());
    // A segment is freed as a whole once written: keep it within half the room above the watermark
    // so that, while it is written, appends still find space (a small PM tiers chunk by chunk).
    this.segmentBytes =
        Math.min(
            config.segmentBytes(),
            Math.max(pm.chunkSize(), (pm.capacityBytes() - highWatermarkBytes) / 2));
    this.tieringThread = tieringThread;
    this.ownedTieringThread = ownedTieringThread;
    this.nanoClock = nanoClock;
    this.publishMetrics = publishMetrics;
    this.tieringChunks = new int[pm.chunkCount()];
  }

  /** See {@link TieredLogStorage#wakeOwnerWith}. */
  void wakeOwnerWith(Executor ownerExecutor) {
    this.ownerWakeup = ownerExecutor;
  }

  /** True while a segment is being written. */
  boolean isTiering() {
    return tieringCount > 0;
  }

  /** True once the storage is closing: nothing starts or applies a segment any more. */
  boolean isClosed() {
    return closed;
  }

  /**
   * Stops tiering and waits for the storage's own tiering thread to finish the segment being
   * written (never reading PM after the storage closes it).
   */
  void close() {
    closed = true;
    if (ownedTieringThread != null) {
      ownedTieringThread.shutdown();
      boolean interrupted = false;
      // Uninterruptibly: closing PM under a running copy would unmap memory it is reading.
      while (true) {
        try {
          if (ownedTieringThread.awaitTermination(10, TimeUnit.SECONDS)) {
            break;
          }
          LOG.warn("waiting for the tiering thread of {} to finish", segments.dir());
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Owner thread, posted by the tiering thread: apply what finished, go on if still above. */
  private void catchUp() {
    if (closed) {
      return;
    }
    applyFinished();
    startIfNeeded();
    publishMetrics.run();
  }

  /** Starts copying the oldest chunks to a segment when PM is above its high watermark. */
  void startIfNeeded() {
    start(false);
  }

  /**
   * Starts copying the oldest chunks to a segment, if none is being written and PM is above its
   * high watermark or {@code full}, and not within a second of a failed attempt.
   */
  void start(boolean full) {
    if (tieringCount > 0
        || closed
        || (!full && pm.usedBytes() <= highWatermarkBytes)
        || (retryAfterFailure && nanoClock.getAsLong() - retryAfterNs < 0)) {
      return;
    }
    retryAfterFailure = false;
    int count = pm.beginTiering(segmentBytes, tieringChunks);
    if (count == 0) {
      return; // the oldest chunk is the open one or still has a pending entry
    }
    tieringCount = count;
    int[] indexes = Arrays.copyOf(tieringChunks, count);
    long[] sequences = new long[count];
    int[] ends = new int[count];
    for (int i = 0; i < count; i++) {
      sequences[i] = pm.chunkSequence(indexes[i]);
      ends[i] = pm.entriesEnd(indexes[i]);
    }
    TrimPoints trims = pm.trimPoints();
    Path dir = segments.dir();
    tieringThread.execute(() -> copyToSegment(dir, indexes, sequences, ends, trims));
  }

  /** Runs on the tiering thread: reads the chunks it was handed, writes and fsyncs a segment. */
  private void copyToSegment(
      Path dir, int[] indexes, long[] sequences, int[] ends, TrimPoints trims) {
    if (closed) {
      return; // PM may be unmapped; the chunks are still in PM for the next start
    }
    try {
      List<ChunkImage> images = new ArrayList<>(indexes.length);
      long bytes = 0;
      for (int i = 0; i < indexes.length; i++) {
        images.add(new ChunkImage(sequences[i], pm.readChunk(indexes[i], ends[i])));
        bytes += ends[i];
      }
      Segment segment =
          writer.write(dir, sequences[0], sequences[sequences.length - 1], images, trims);
      finished.add(new TieringResult(segment, bytes, null));
    } catch (RuntimeException | Error e) {
      finished.add(new TieringResult(null, 0, e));
    }
    Executor owner = ownerWakeup;
    if (owner != null) {
      try {
        owner.execute(ownerCatchUp);
      } catch (RejectedExecutionException e) {
        // The owner is shutting down: the result is applied at its next flush, or recovered.
      }
    }
  }

  /** Owner thread: installs finished segments and frees their PM chunks. */
  void applyFinished() {
    TieringResult result;
    while ((result = finished.poll()) != null) {
      if (result.segment() != null) {
        segments.add(result.segment()); // readable from SSD before PM lets go
        pm.finishTiering(tieringChunks, tieringCount, true);
        metrics.tieringMoves.increment();
        metrics.tieringBytes.increment(result.chunkBytes());
        deleteTrimmedSegments();
      } else {
        pm.finishTiering(tieringChunks, tieringCount, false);
        retryAfterFailure = true;
        retryAfterNs = nanoClock.getAsLong() + RETRY_AFTER_FAILURE_NS;
        LOG.error(
            "tiering to {} failed, PM keeps the chunks and retries in 1 s",
            segments.dir(),
            result.error());
      }
      tieringCount = 0;
    }
  }

  /** Deletes, on the tiering thread, the segments whose entries are all trimmed. */
  void deleteTrimmedSegments() {
    for (Path file : segments.removeTrimmed(pm.trimPoints())) {
      tieringThread.execute(() -> SegmentStore.delete(file));
    }
  }

  /** What the tiering thread hands back: a written segment, or why it failed. */
  private record TieringResult(Segment segment, long chunkBytes, Throwable error) {}
}
