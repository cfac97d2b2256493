package io.flexlog.bench.storage;

/**
 * What one engine did in the measured phase of a run, summed over its threads.
 *
 * <p>Rates are the sum over threads of each thread's operations divided by its measured time, less
 * any time it spent replacing a full log ({@link #logRecycles}): with one thread, plainly
 * operations per second.
 *
 * @param name {@code flexlog} or {@code rocksdb}
 * @param description engine, durability and thread model, as printed
 * @param measuredSeconds the longest thread's measured time, recycling excluded
 * @param appendLatency latency of appends
 * @param readLatency latency of reads; count 0 without reads
 * @param logRecycles times a thread's log was full and replaced by an empty one (FlexLog only)
 * @param recycleSeconds time spent replacing full logs, not measured, summed over threads
 * @param verifiedRecords records read back after the run and found identical to what was written
 */
public record EngineResult(
    String name,
    String description,
    double measuredSeconds,
    long appends,
    long reads,
    double appendsPerSec,
    double readsPerSec,
    LatencySummary appendLatency,
    LatencySummary readLatency,
    long logRecycles,
    double recycleSeconds,
    long verifiedRecords) {

  public long operations() {
    return appends + reads;
  }

  public double opsPerSec() {
    return appendsPerSec + readsPerSec;
  }
}
