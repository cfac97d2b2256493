package io.flexlog.core.record;

import java.util.List;

/**
 * The fields of a stored record in {@link RecordFormatDescriptor} format, as read in place: the
 * value stays in the stored bytes at {@code valueOffset}, possibly compressed.
 *
 * @param key the key, or null
 * @param headers the headers in the order they were written
 * @param timestampMs milliseconds since the epoch, {@link RecordFormatDescriptor#NO_TIMESTAMP} if
 *     none was given
 * @param compression the value's codec ({@link RecordFormatDescriptor#COMPRESSION_NONE}, ...)
 * @param valueLength the value's length once decompressed
 * @param valueOffset where the stored (maybe compressed) value starts in the buffer read
 * @param storedValueLength the stored value's length
 */
public record RecordFields(
    byte[] key,
    List<RecordHeader> headers,
    long timestampMs,
    int compression,
    int valueLength,
    int valueOffset,
    int storedValueLength) {}
