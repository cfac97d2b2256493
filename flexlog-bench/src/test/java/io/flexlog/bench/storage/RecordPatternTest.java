package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class RecordPatternTest {
  private final RecordPattern pattern = new RecordPattern(64);

  @Test
  void shouldStampTheKeyLittleEndianIntoTheFirstEightBytes() {
    byte[] record = pattern.newRecord(0x0102_0304_0506_0708L);

    assertThat(record).hasSize(64).startsWith(8, 7, 6, 5, 4, 3, 2, 1);
    assertThat(RecordPattern.stampedKey(record)).isEqualTo(0x0102_0304_0506_0708L);
  }

  @Test
  void shouldGiveTheSameBodyToEveryRecordAndDifferentStampsToDifferentKeys() {
    byte[] a = pattern.newRecord(1);
    byte[] b = pattern.newRecord(2);

    assertThat(a).isNotEqualTo(b);
    assertThat(java.util.Arrays.copyOfRange(a, 8, 64))
        .isEqualTo(java.util.Arrays.copyOfRange(b, 8, 64))
        .isNotEqualTo(new byte[56]);
  }

  @Test
  void shouldStampBuffersAsArrays() {
    long key = RecordPattern.key(3, 12345);
    ByteBuf buf = Unpooled.directBuffer(64);
    ByteBuffer nio = ByteBuffer.allocateDirect(64).order(ByteOrder.BIG_ENDIAN);
    try {
      pattern.fill(buf);
      RecordPattern.stamp(buf, key);
      pattern.fill(nio);
      RecordPattern.stamp(nio, key);
      byte[] fromBuf = new byte[64];
      buf.getBytes(0, fromBuf);
      byte[] fromNio = new byte[64];
      nio.get(0, fromNio);

      assertThat(fromBuf).isEqualTo(pattern.newRecord(key));
      assertThat(fromNio).isEqualTo(pattern.newRecord(key));
    } finally {
      buf.release();
    }
  }

  @Test
  void shouldMatchOnlyTheExactRecord() {
    long key = RecordPattern.key(1, 7);
    byte[] record = pattern.newRecord(key);

    assertThat(pattern.matches(record, 64, key)).isTrue();
    assertThat(pattern.matches(record, 63, key)).isFalse();
    assertThat(pattern.matches(record, 64, key + 1)).isFalse();
    record[40] ^= 1;
    assertThat(pattern.matches(record, 64, key)).isFalse();
  }

  @Test
  void shouldKeepThreadsApartInKeys() {
    assertThat(RecordPattern.key(0, 5)).isEqualTo(5);
    assertThat(RecordPattern.key(1, 5)).isEqualTo((1L << 40) | 5);
    assertThatThrownBy(() -> RecordPattern.key(0, 1L << 40))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RecordPattern(7)).hasMessageContaining("at least 8 bytes");
  }
}
