/**
 * The replica's storage API: the durable log of one replica node ({@link
 * io.flexlog.replica.storage.LogStorage}), how it is opened ({@link
 * io.flexlog.replica.storage.StorageEngines}), and the service-provider interface between the PM
 * engines and the SSD tier ({@link io.flexlog.replica.storage.TierableLog}).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>The replication protocol ({@code replica.replication}, {@code replica.atomic}) sees only
 *       {@code LogStorage}: it appends pending entries, commits SNs, flushes once per batch, reads
 *       payloads by address, trims and recovers.
 *   <li>The node shell ({@code ReplicaNode}, the server's {@code Nodes}) and the benchmarks open
 *       storage through {@code StorageEngines}, the only class here that names an engine: {@code
 *       open} gives a bare PM engine, {@code openTiered} the tiered engine on top of one.
 *   <li>Below this package, each in its own package:
 *       <ul>
 *         <li>{@code storage.chunk}: the chunked PM log both engines share (entry and chunk
 *             layouts, append, commit, flush, trim, chunk reuse, recovery) and the chunk-memory
 *             abstraction the engines supply;
 *         <li>{@code storage.pm}: the two PM engines, llpl (persistent memory through libpmemobj)
 *             and mapped files (pure Java);
 *         <li>{@code storage.tier}: the tiered engine, which puts the off-heap cache ({@code
 *             storage.cache}) in front of a PM engine and moves its oldest chunks to SSD segment
 *             files ({@code storage.segment}). It reaches the PM engine only through {@code
 *             TierableLog}, which the engines implement; it never names an engine class.
 *       </ul>
 *       Dependencies point one way: {@code pm -> chunk}, {@code tier -> cache, segment}, {@code
 *       segment -> chunk} (for the PM entry layout), and all of them to this package; only {@code
 *       StorageEngines} reaches down, into {@code pm} and {@code tier}.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * <p>One owner thread (the replica's event loop) calls every method of a storage; no implementation
 * is thread-safe. Payload views and retained buffers may be handed to Netty, which releases them on
 * the same event loop. The tiered engine runs its SSD copies on a tiering thread of its own, which
 * touches only what the owner handed it ({@code storage.tier}).
 *
 * <h2>Durability and crashes</h2>
 *
 * <p>Nothing written is durable until {@code flush()} returns; a trim is durable when it returns.
 * What a flushed entry survives is the {@link io.flexlog.replica.storage.DurabilityMode}: a process
 * crash ({@code process}) or a machine crash ({@code fsync}, {@code pmem}). After a crash, {@code
 * recover} replays exactly the entries whose append was flushed, with their SN if the commit was
 * flushed, and never a torn entry or a committed entry at or below its color's trim point.
 * Addresses survive restarts and tier moves unchanged. Failures to open, create or write the log
 * are {@link io.flexlog.replica.storage.StorageException}s; a full log is a return value ({@code
 * NO_SPACE}), not an exception.
 */
package io.flexlog.replica.storage;
