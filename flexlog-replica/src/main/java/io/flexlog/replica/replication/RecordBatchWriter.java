package io.flexlog.replica.replication;

import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;

/**
 * Builds one SUBSCRIBE_RECORDS frame in two steps: {@link #take} picks the index entries of a log
 * that fit a subscription's limits and takes their payloads from storage once each, by scan ({@link
 * LogStorage#scanCopy}: straight from the tier that holds them, without filling the cache), then
 * {@link #write} writes the frame. Payloads shorter than {@link #COPY_BELOW_BYTES} are copied into
 * one buffer per frame: no buffer object and no socket write per record, which a catch-up read of
 * small records spends most of its time on otherwise. Larger ones go out as retained views of the
 * log, so the socket reads them straight from storage.
 *
 * <p>Design note: the frame is a header buffer (with the entry table) followed by buffers written
 * in order on the same connection: runs of copied payloads, as slices of the copy buffer, between
 * the views; a Netty channel sends them with one gathering write at the next flush.
 *
 * <p>Threading: the engine's event loop. {@link #take} and {@link #write} go in pairs, within one
 * call of the caller (the payloads taken are held in between).
 */
final class RecordBatchWriter {
  /** Payloads shorter than this are copied into the frame instead of sent as views. */
  static final int COPY_BELOW_BYTES = 16 << 10;

  private final LogStorage storage;
  private ByteBuf copies;
  private ByteBuf[] views = new ByteBuf[64];
  private int[] lengths = new int[64];
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
   * @param alloc where the copy buffer comes from (the connection's allocator)
   * @return the position after the last entry taken; {@code from} if none: then nothing is held and
   *     {@link #write} must not be called
   */
  int take(
      ColorLog log,
      int from,
      long limit,
      long credit,
      int maxBytes,
      int maxRecords,
      ByteBufAllocator alloc) {
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
      if (copies == null) {
        copies = alloc.directBuffer(maxBytes + COPY_BELOW_BYTES);
      }
      if (count == lengths.length) {
        lengths = Arrays.copyOf(lengths, count * 2);
        views = Arrays.copyOf(views, count * 2);
      }
      long address = index.addressAt(to);
      int length = storage.scanCopy(address, copies, COPY_BELOW_BYTES);
      if (length < 0) {
        length = -1 - length;
        views[count] = storage.scanPayload(address);
      }
      lengths[count++] = length;
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
    for (int i = 0; i < count; i++) {
      payloadBytes += lengths[i];
    }
    ByteBuf header =
        SubscribeRecordsDescriptor.encodeHeader(
            connection.alloc(), id, log.colorId, log.shardId, progress, count, payloadBytes, 0);
    for (int i = 0; i < count; i++) {
      SubscribeRecordsDescriptor.writeEntry(header, index.snAt(from + i), lengths[i]);
    }
    connection.write(header);
    ByteBuf copied = copies;
    copies = null;
    int runStart = copied.readerIndex();
    int at = runStart;
    for (int i = 0; i < count; i++) {
      ByteBuf view = views[i];
      if (view == null) {
        at += lengths[i];
        continue;
      }
      views[i] = null;
      if (at > runStart) {
        connection.write(copied.retainedSlice(runStart, at - runStart));
      }
      connection.write(view);
      runStart = at;
    }
    if (at > runStart) {
      connection.write(copied.retainedSlice(runStart, at - runStart));
    }
    copied.release();
    count = 0;
  }
}
