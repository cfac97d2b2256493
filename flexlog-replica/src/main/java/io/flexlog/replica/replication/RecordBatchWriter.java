package io.flexlog.replica.replication;

import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;

/**
 * Builds one SUBSCRIBE_RECORDS frame in two steps: {@link #take} picks the index entries of a log
 * that fit a subscription's limits and takes their payloads from storage once each (a scan read,
 * {@link LogStorage#scanPayload}: straight from the tier that holds them, without filling the
 * cache), then {@link #write} writes the frame. Small payloads are copied into the frame's buffer
 * (one copy is cheaper than a buffer object per record); larger ones go out as the retained views
 * of the log, so the socket reads them straight from storage.
 *
 * <p>Design note: the frame is a header buffer followed by buffers written in order on the same
 * connection; a Netty channel sends them with one gathering write at the next flush.
 *
 * <p>Threading: the engine's event loop. {@link #take} and {@link #write} go in pairs, within one
 * call of the caller (the payloads taken are held in between).
 */
final class RecordBatchWriter {
  /** Payloads shorter than this are copied into the frame instead of sent as views. */
  static final int COPY_BELOW_BYTES = 1024;

  private final LogStorage storage;
  private ByteBuf[] payloads = new ByteBuf[64];
  private int count;
  private int from;
  private long creditLeft;

  RecordBatchWriter(LogStorage storage) {
    this.storage = storage;
  }

  /**
   * Takes the payloads of the index entries from position {@code from} on, in order, while their SN
   * is at most {@code limit}, credit remains (each record costs {@link
   * SubscribeRecordsDescriptor#recordCost}, so the last one may overshoot it), fewer than {@code
   * maxBytes} payload bytes and {@code maxRecords} records were taken.
   *
   * @return the position after the last entry taken; {@code from} if none: then nothing is held and
   *     {@link #write} must not be called
   */
  int take(ColorLog log, int from, long limit, long credit, int maxBytes, int maxRecords) {
    SnIndex index = log.index;
    this.from = from;
    count = 0;
    long bytes = 0;
    int to = from;
    while (to < index.size()
        && index.snAt(to) <= limit
        && credit > 0
        && bytes < maxBytes
        && count < maxRecords) {
      ByteBuf payload = storage.scanPayload(index.addressAt(to));
      if (count == payloads.length) {
        payloads = Arrays.copyOf(payloads, count * 2);
      }
      payloads[count++] = payload;
      int length = payload.readableBytes();
      credit -= SubscribeRecordsDescriptor.recordCost(length);
      bytes += length;
      to++;
    }
    creditLeft = credit;
    return to;
  }

  /** The credit left after the records of the last {@link #take}. */
  long creditLeft() {
    return creditLeft;
  }

  /**
   * Writes the frame of subscription {@code id} with the records of the last {@link #take}, without
   * flushing; the connection owns their payloads from now on.
   */
  void write(Connection connection, long id, ColorLog log, long progress) {
    SnIndex index = log.index;
    int payloadBytes = 0;
    int copied = 0;
    for (int i = 0; i < count; i++) {
      int length = payloads[i].readableBytes();
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
      SubscribeRecordsDescriptor.writeEntry(buf, index.snAt(from + i), payloads[i].readableBytes());
    }
    for (int i = 0; i < count; i++) {
      ByteBuf payload = payloads[i];
      payloads[i] = null;
      int length = payload.readableBytes();
      if (length < COPY_BELOW_BYTES) {
        buf.writeBytes(payload, payload.readerIndex(), length);
        payload.release();
        copied -= length;
        continue;
      }
      writeOrRelease(connection, buf);
      connection.write(payload);
      buf = copied == 0 ? Unpooled.EMPTY_BUFFER : connection.alloc().buffer(copied);
    }
    count = 0;
    writeOrRelease(connection, buf);
  }

  private static void writeOrRelease(Connection connection, ByteBuf buf) {
    if (buf.isReadable()) {
      connection.write(buf);
    } else {
      buf.release();
    }
  }
}
