/**
 * The persistent-memory engines: two ways to provide the chunks of the shared chunk log ({@code
 * storage.chunk}), with the same layout and recovery.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.replica.storage.pm.LlplLogStorage}: one llpl heap file ({@code pm.heap},
 *       needs libpmemobj); its root block is the chunk table followed by the trim table ({@code
 *       ChunkTableDescriptor}). Chunks are wrapped as direct buffers ({@code NativeMemory}) or,
 *       when their raw address is unreachable, read through llpl's accessors ({@code
 *       LlplAccessorChunkMemory}, one copy more each way).
 *   <li>{@link io.flexlog.replica.storage.pm.MappedFileLogStorage}: one mapped file per chunk and a
 *       trim table file, pure Java, for machines without libpmemobj.
 *   <li>Both extend {@code ChunkedLogStorage}, so they are {@code LogStorage}s and {@code
 *       TierableLog}s; {@code StorageEngines} opens them by name, the tier ({@code storage.tier})
 *       sits on either through {@code TierableLog}.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * <p>As every {@code LogStorage}: one owner thread. Opening and closing happen on the caller's
 * thread, before and after the owner uses the log.
 *
 * <h2>Durability and crashes</h2>
 *
 * <ul>
 *   <li>llpl: {@code process} flushes CPU cache lines into the shared mapping (requires {@code
 *       PMEM_IS_PMEM_FORCE=1}); {@code fsync} msyncs the flushed ranges through a second mapping of
 *       the heap file; {@code pmem} requires a DAX mount, where the cache flush reaches the
 *       persistence domain. Opening fails rather than silently giving weaker durability. A new heap
 *       gets its root last, so a heap with a root has a complete chunk table, trim table and
 *       formatted chunks; a heap without one was interrupted while being created.
 *   <li>mapped: {@code process} relies on the page cache; {@code fsync} forces exactly the flushed
 *       ranges, and the directory when files were created; {@code pmem} is rejected. A trim table
 *       file left all zeros by a crash right after its creation is formatted again.
 * </ul>
 */
package io.flexlog.replica.storage.pm;
