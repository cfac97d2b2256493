package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RecordEntriesTest {
  /** A SUBSCRIBE_RECORDS frame of {@code count} records, cut into parts as socket reads cut it. */
  private static ByteBuf frame(int count, long firstSn, Random random) {
    int[] lengths = new int[count];
    int bytes = 0;
    for (int i = 0; i < count; i++) {
      lengths[i] = random.nextInt(100);
      bytes += lengths[i];
    }
    ByteBuf whole =
        SubscribeRecordsDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, 1, 2, 3, firstSn + count, count, bytes, bytes);
    for (int i = 0; i < count; i++) {
      SubscribeRecordsDescriptor.writeEntry(whole, firstSn + 2L * i, lengths[i]);
    }
    for (int i = 0; i < count; i++) {
      whole.writeZero(lengths[i]);
    }
    CompositeByteBuf parts = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    while (whole.isReadable()) {
      int n = Math.min(whole.readableBytes(), 1 + random.nextInt(4096));
      parts.addComponent(true, whole.readRetainedSlice(n));
    }
    whole.release();
    return parts;
  }

  @Test
  void shouldReadEveryEntryOfFramesLargerAndSmallerThanItsArrays() {
    Random random = new Random(42);
    RecordEntries entries = new RecordEntries();
    for (int count : new int[] {3, 1000, 0, 257, 5}) {
      ByteBuf frame = frame(count, 100, random);
      try {
        entries.load(frame);

        assertThat(entries.count()).isEqualTo(count);
        for (int i = 0; i < count; i++) {
          assertThat(entries.sn(i)).isEqualTo(SubscribeRecordsDescriptor.sn(frame, i));
          assertThat(entries.sn(i)).isEqualTo(100 + 2L * i);
          assertThat(entries.length(i))
              .isEqualTo(SubscribeRecordsDescriptor.payloadLength(frame, i));
        }
      } finally {
        frame.release();
      }
    }
  }
}
