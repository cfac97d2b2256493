/**
 * The chunked persistent-memory log that both PM engines share: the on-media layouts, and the log
 * logic over fixed-size chunks of durable memory. An engine ({@code storage.pm}) only supplies the
 * memory of each chunk and of the trim table, and how a byte range is made durable.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>The engines extend {@link io.flexlog.replica.storage.chunk.ChunkedLogStorage}, which
 *       implements {@code LogStorage} and the tier's {@code TierableLog}: they map their chunks as
 *       {@link io.flexlog.replica.storage.chunk.ChunkMemory} ({@link
 *       io.flexlog.replica.storage.chunk.ByteBufChunkMemory} over direct memory, with a {@link
 *       io.flexlog.replica.storage.chunk.RangeFlusher} for their durability), format new ones and
 *       attach them. The log logic itself is package-private.
 *   <li>{@code ChunkLog} writes and reads entries: append into the open chunk, commit the SN in
 *       place, flush the appended range and the SN words (merging close ones), reads by address,
 *       trim. {@code ChunkPool} owns the chunks' life: free list, open, sealed, handed to tiering,
 *       draining until no retained view is left, free again. {@code ChunkRecovery} is the recovery
 *       scan. {@code ChunkHeaders} formats and checks chunk headers, {@code EntryChecksum} computes
 *       entry CRCs, {@code TrimTable} keeps the durable trim points and {@code ChunkColors} which
 *       colors each chunk holds, so dead chunks are found without reading them.
 *   <li>The layouts are public because other packages read them: {@link
 *       io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor} and {@link
 *       io.flexlog.replica.storage.chunk.PmEntryDescriptor} (the segment writer parses PM chunks,
 *       the benchmarks size entries), {@link io.flexlog.replica.storage.chunk.TrimTableDescriptor}
 *       (the engines place the table).
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * <p>One owner thread calls everything. The tiering thread only reads chunks the owner handed it
 * ({@code TierableLog.readChunk}), which the owner neither writes nor frees until the hand-off
 * ends. Steady state allocates nothing except when the array of pending SN commits grows.
 *
 * <h2>Durability and crashes</h2>
 *
 * <ul>
 *   <li>A chunk's sequence is made durable before the first entry is written into it, so a chunk
 *       whose header sequence is {@code <= 0} never holds live entries. A freed chunk's sequence is
 *       negated durably before the chunk is reused; a reused chunk is not zeroed, since entry CRCs
 *       cover the chunk sequence and so reject entries of its previous life.
 *   <li>Appends and commits are durable after {@code flush()}. A new color's trim slot is durable
 *       before the slot count that covers it; raising a trim point is one aligned 8-byte store.
 *   <li>Recovery replays chunks in sequence order and each chunk up to its first entry that fails
 *       its length or CRC check, then erases the rest of that chunk, so a stale entry can never
 *       reappear once the writer overwrites the torn one. A torn entry ends only its own chunk.
 *       Committed entries at or below their color's trim point are not replayed.
 * </ul>
 */
package io.flexlog.replica.storage.chunk;
