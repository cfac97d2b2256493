package io.flexlog.bench.storage;

import java.util.Optional;

/**
 * What one engine did in the measured phase of a run, summed over its threads.
 *
 * <p>Rates are the sum over threads of each thread's operations divided by its measured time, less
 * any time it spent making room in a full log ({@link #logTrims}): with one thread, plainly
 * operations per second.
 *
 * @param name {@code flexlog} or {@code rocksdb}
 * @param description engine, durability and thread model, as printed
 * @param measuredSeconds the longest thread's measured time, recycling excluded
 * @param appendLatency latency of appends
 * @param readLatency latency of reads; count 0 without reads
 * @param logTrims times a thread's log was full and trimmed its oldest half (FlexLog only)
 * @param trimSeconds time spent on those trims, not measured, summed over threads
 * @param verifiedRecords records read back after the run and found identical to what was written
 * @param tiers the tiered engine's counters over the measured phase, summed over threads; empty for
 *     other engines
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
    long logTrims,
    double trimSeconds,
    long verifiedRecords,
    Optional<TierStats> tiers) {

  public long operations() {
    return appends + reads;
  }

  public double opsPerSec() {
    return appendsPerSec + readsPerSec;
  }
}
