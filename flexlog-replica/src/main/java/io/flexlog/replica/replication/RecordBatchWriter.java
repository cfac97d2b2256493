package io.flexlog.replica.replication;

import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;

/**
 * Writes one SUBSCRIBE_RECORDS frame for index entries {@code [from, to)} of a log. Small payloads
 * are copied into the frame's buffer (one copy is cheaper than a buffer object per record); larger
 * ones go out as retained views of the log, so the socket reads them straight from storage.
 *
 * <p>Design note: the frame is a header buffer followed by buffers written in order on the same
 * connection; a Netty channel sends them with one gathering write at the next flush.
 *
 * <p>Threading: the engine's event loop.
 */
final class RecordBatchWriter {
  /** Payloads shorter than this are copied into the frame instead of sent as views. */
  static final int COPY_BELOW_BYTES = 1024;

  private final LogStorage storage;
  private int[] lengths = new int[64];

  RecordBatchWriter(LogStorage storage) {
    this.storage = storage;
  }

  /** Writes the frame of subscription {@code id} without flushing. */
  void write(Connection connection, long id, ColorLog log, long progress, int from, int to) {
    SnIndex index = log.index;
    int count = to - from;
    if (lengths.length < count) {
      lengths = Arrays.copyOf(lengths, Math.max(count, lengths.length * 2));
    }
    int payloadBytes = 0;
    int copied = 0;
    for (int i = 0; i < count; i++) {
      int length = storage.payloadLength(index.addressAt(from + i));
      lengths[i] = length;
      payloadBytes += length;
      if (length < COPY_BELOW_BYTES) {
        copied += length;
      }
    }
    ByteBuf buf =
        SubscribeRecordsDescriptor.encodeHeader(
            connection.alloc(),
            id,
            log.colorId,
            log.shardId,
            progress,
            count,
            payloadBytes,
            copied);
    for (int i = 0; i < count; i++) {
      SubscribeRecordsDescriptor.writeEntry(buf, index.snAt(from + i), lengths[i]);
    }
    for (int i = 0; i < count; i++) {
      long address = index.addressAt(from + i);
      if (lengths[i] < COPY_BELOW_BYTES) {
        buf.writeBytes(storage.payload(address));
        copied -= lengths[i];
        continue;
      }
      writeOrRelease(connection, buf);
      connection.write(retainedPayload(address));
      buf = copied == 0 ? Unpooled.EMPTY_BUFFER : connection.alloc().buffer(copied);
    }
    writeOrRelease(connection, buf);
  }

  private static void writeOrRelease(Connection connection, ByteBuf buf) {
    if (buf.isReadable()) {
      connection.write(buf);
    } else {
      buf.release();
    }
  }

  /**
   * A view of the entry's payload that the connection releases once written; it stays valid through
   * cache eviction, tiering and chunk reuse (see {@link LogStorage#retainedPayload}).
   */
  private ByteBuf retainedPayload(long address) {
    return storage.retainedPayload(address);
  }
}
