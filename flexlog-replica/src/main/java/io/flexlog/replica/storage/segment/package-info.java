/**
 * The SSD tier: immutable segment files, each the live entries of consecutive PM chunks ({@link
 * io.flexlog.replica.storage.segment.SegmentDescriptor} is the file layout).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@code TieredLogStorage} ({@code storage.tier}) hands the tiering thread {@link
 *       io.flexlog.replica.storage.segment.ChunkImage}s of PM chunks; {@link
 *       io.flexlog.replica.storage.segment.SegmentWriter} turns them into one segment file (it
 *       parses PM entries through the layouts of {@code storage.chunk}).
 *   <li>{@link io.flexlog.replica.storage.segment.SegmentStore} holds the segments of one node,
 *       reads entries by address ({@link io.flexlog.replica.storage.segment.Segment}), deletes
 *       trimmed segments and, at start-up, recovers the directory and replays its entries. {@code
 *       SegmentSummary} is a segment's footer data (sparse index, per-color SN ranges).
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * <p>{@code SegmentWriter} runs on the tiering thread and touches nothing but its arguments and
 * buffers. A written segment is handed to the owner thread through a queue; from then on the owner
 * alone reads it and the {@code SegmentStore}.
 *
 * <h2>Durability and crashes</h2>
 *
 * <p>A segment is written, then the file and its directory are fsync'ed before the PM chunks it
 * copies may be freed; a failed write deletes the partial file. At start-up, per chunk sequence, a
 * complete segment (header, every entry CRC and the footer verify) is authoritative; otherwise PM,
 * if it still holds the chunk; otherwise the valid prefix of a damaged segment. A file whose header
 * cannot be read is deleted when PM holds its first chunk, else set aside as {@code .damaged}.
 */
package io.flexlog.replica.storage.segment;
