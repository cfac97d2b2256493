package io.flexlog.client.internals;

import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The entry table (SN and payload length of each record) of one SUBSCRIBE_RECORDS frame, read in
 * one pass before its payloads are decoded, into arrays reused from frame to frame.
 *
 * <p>Why a pass of its own: a frame that straddled socket reads is a composite buffer of the reads
 * it spans, which finds the part holding an index fast only while the accesses stay in the last
 * part it used. Reading entry i and then payload i jumps between the first part (the table) and a
 * later one for every record, and each jump searches the parts
 * (docs/architecture.md#frame-decoding).
 *
 * <p>Threading: the client's event loop, one frame at a time.
 */
final class RecordEntries {
  private long[] sns = new long[256];
  private int[] lengths = new int[256];
  private int count;

  /** Reads the table of {@code frame}. */
  void load(ByteBuf frame) {
    count = SubscribeRecordsDescriptor.count(frame);
    if (count > sns.length) {
      int capacity = Math.max(count, sns.length * 2);
      sns = Arrays.copyOf(sns, capacity);
      lengths = Arrays.copyOf(lengths, capacity);
    }
    for (int i = 0; i < count; i++) {
      sns[i] = SubscribeRecordsDescriptor.sn(frame, i);
      lengths[i] = SubscribeRecordsDescriptor.payloadLength(frame, i);
    }
  }

  int count() {
    return count;
  }

  long sn(int index) {
    return sns[index];
  }

  int length(int index) {
    return lengths[index];
  }
}
