/**
 * The off-heap DRAM cache of the tiered engine: recent and recently read records by storage
 * address, within a byte budget ({@link io.flexlog.replica.storage.cache.RecordCache}, records laid
 * out by {@code CacheRecordDescriptor}).
 *
 * <h2>Who talks to whom</h2>
 *
 * <p>Only {@code TieredLogStorage} ({@code storage.tier}) uses it: every append puts the record in,
 * reads look here first and fill it on a miss. It knows nothing of PM or SSD.
 *
 * <h2>Threading</h2>
 *
 * <p>Owned by the storage's owner thread. Retained views may be released from any thread: a block
 * with views still held is never overwritten, the cache lets go of it instead.
 *
 * <h2>Durability and crashes</h2>
 *
 * <p>None: the cache holds copies only, is never persisted, and starts empty after a restart.
 */
package io.flexlog.replica.storage.cache;
