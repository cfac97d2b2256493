/**
 * The tiered engine: three tiers behind one {@code LogStorage}, read in this order: an off-heap
 * DRAM cache ({@code storage.cache}), a PM engine ({@code storage.pm}), and SSD segment files
 * ({@code storage.segment}).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.replica.storage.tier.TieredLogStorage} is the engine; {@link
 *       io.flexlog.replica.storage.tier.TieredStorageConfig} its validated settings; {@code
 *       TierMetrics} its Micrometer meters; {@code SegmentTiering} moves its PM chunks to segments
 *       (the tiering thread, the hand-back, retries). {@code StorageEngines.openTiered} builds it.
 *   <li>It reaches the PM engine only through {@code TierableLog}, passed in typed at construction:
 *       appends, commits and flushes go to PM, reads to whichever tier holds the address, and whole
 *       chunks move from PM to a segment through the tiering hand-off ({@code beginTiering}, {@code
 *       readChunk}, {@code finishTiering}).
 *   <li>Segments are written by {@code SegmentWriter} and served by {@code SegmentStore}; the cache
 *       is a {@code RecordCache}.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * <p>The owner thread (the replica's event loop) calls every method. One background tiering thread
 * copies chunks into a segment file and fsyncs it, reading only the chunks the owner handed it and
 * touching no other state; it hands its result back through a queue, and the owner applies it
 * (installs the segment, frees the PM chunks) in its next flush, trim or full append, or in a task
 * posted to the owner's executor ({@code wakeOwnerWith}). So the owner never waits for SSD I/O.
 * Segment deletions after a trim also run on the tiering thread. Meters read volatile snapshots.
 *
 * <h2>Durability and crashes</h2>
 *
 * <p>Durability is the PM engine's: the cache is never persisted, and an entry reaches SSD only
 * after it is durable in PM. A segment file and its directory are fsync'ed before the PM chunks it
 * copies are freed, so after a crash both may hold a chunk; {@code SegmentStore} decides which tier
 * is authoritative (a complete segment, else PM, else the valid prefix of a damaged segment), so a
 * crash at any point of tiering neither loses nor duplicates an entry. A failed copy leaves the
 * chunks in PM and is retried after a second.
 */
package io.flexlog.replica.storage.tier;
