package io.flexlog.replica.storage.segment;

import java.nio.ByteBuffer;

/**
 * The entries of one PM chunk as the tiering thread reads them: a little-endian buffer private to
 * that thread over the chunk from its start to the end of its entries (PM entry layout, see {@code
 * PmEntryDescriptor}; entries start at {@code ChunkHeaderDescriptor.ENTRIES_OFFSET}).
 *
 * @param sequence the chunk's sequence, the high half of its entries' addresses
 */
public record ChunkImage(long sequence, ByteBuffer buffer) {}
