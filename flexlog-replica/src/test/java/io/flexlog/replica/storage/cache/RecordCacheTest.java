package io.flexlog.replica.storage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecordCacheTest {
  private RecordCache cache;

  @AfterEach
  void close() {
    if (cache != null) {
      cache.close();
    }
  }

  private static byte[] bytes(long address, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (address * 31 + i * 7);
    }
    return bytes;
  }

  private boolean put(long address, int length) {
    ByteBuf source = Unpooled.wrappedBuffer(bytes(address, length));
    source.readerIndex(0);
    return cache.put(address, source, 0, length);
  }

  private static byte[] copy(ByteBuf view) {
    return ByteBufUtil.getBytes(view, view.readerIndex(), view.readableBytes(), true);
  }

  @Test
  void shouldReturnCachedPayloadsWithIdenticalBytesAndNotMoveTheSource() {
    cache = new RecordCache(1 << 20);
    byte[] source = bytes(9, 500);
    ByteBuf buffer = Unpooled.wrappedBuffer(source).readerIndex(100);
    assertThat(cache.put(9, buffer, 100, 400)).isTrue();
    assertThat(buffer.readerIndex()).isEqualTo(100);
    for (long address = 10; address < 110; address++) {
      assertThat(put(address, (int) (address * 37 % 3000))).isTrue();
    }

    assertThat(copy(cache.view(9))).isEqualTo(Arrays.copyOfRange(source, 100, 500));
    for (long address = 10; address < 110; address++) {
      int length = (int) (address * 37 % 3000);
      assertThat(cache.length(address)).isEqualTo(length);
      assertThat(copy(cache.view(address))).isEqualTo(bytes(address, length));
      ByteBuf retained = cache.retainedView(address);
      assertThat(copy(retained)).isEqualTo(bytes(address, length));
      assertThat(retained.isReadOnly()).isTrue();
      retained.release();
    }
    assertThat(cache.view(5)).isNull();
    assertThat(cache.length(5)).isEqualTo(-1);
    assertThat(cache.records()).isEqualTo(101);
  }

  @Test
  void shouldNotCacheRecordsLargerThanABlockOrAnythingWhenDisabled() {
    cache = new RecordCache(1 << 20);
    int tooLarge = cache.blockBytes() - CacheRecordDescriptor.HEADER_LENGTH + 1;

    assertThat(cache.fits(tooLarge)).isFalse();
    assertThat(put(1, tooLarge)).isFalse();
    assertThat(cache.contains(1)).isFalse();
    assertThat(put(2, tooLarge - 8)).isTrue();

    RecordCache disabled = new RecordCache(0);
    assertThat(disabled.isEnabled()).isFalse();
    assertThat(disabled.put(3, Unpooled.wrappedBuffer(new byte[1]), 0, 1)).isFalse();
    assertThat(disabled.view(3)).isNull();
  }

  @Test
  void shouldStayWithinItsBudgetAndForgetEvictedRecords() {
    cache = new RecordCache(1 << 20);
    long address = 0;
    for (; address < 10_000; address++) {
      put(address, 1000);
      assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacityBytes());
    }

    assertThat(cache.capacityBytes()).isLessThanOrEqualTo(1 << 20);
    assertThat(cache.view(0)).isNull();
    assertThat(cache.contains(address - 1)).isTrue();
    assertThat(copy(cache.view(address - 1))).isEqualTo(bytes(address - 1, 1000));
    // Only what fits stays indexed: about budget / record size.
    assertThat(cache.records())
        .isLessThanOrEqualTo(
            (int) (cache.capacityBytes() / CacheRecordDescriptor.recordLength(1000)));
    assertThat(cache.evictedBlocks()).isPositive();
  }

  @Test
  void shouldGiveABlockThatWasReadASecondChance() {
    cache = new RecordCache(256 * 1024); // four blocks of 64 KiB
    int perBlock = cache.blockBytes() / CacheRecordDescriptor.recordLength(1000);
    long address = 0;
    for (int block = 0; block < 4; block++) {
      for (int i = 0; i < perBlock; i++) {
        put(address++, 1000);
      }
    }
    long hot = 3; // in the first block
    long cold = perBlock + 3; // in the second block
    cache.view(hot);

    for (int i = 0; i < perBlock; i++) {
      put(address++, 1000); // needs one block: the clock passes the read one, empties the next
    }

    assertThat(cache.contains(hot)).isTrue();
    assertThat(cache.contains(cold)).isFalse();
  }

  @Test
  void shouldKeepRetainedViewsValidAfterTheirBlockIsEvicted() {
    cache = new RecordCache(256 * 1024);
    put(1, 3000);
    ByteBuf retained = cache.retainedView(1);
    for (long address = 2; address < 2000; address++) {
      put(address, 1000);
    }

    assertThat(cache.contains(1)).isFalse();
    assertThat(copy(retained)).isEqualTo(bytes(1, 3000));
    assertThat(retained.refCnt()).as("only this view holds the old block").isEqualTo(1);
    retained.release();
    assertThat(retained.refCnt()).isZero();
  }

  @Test
  void shouldRejectABudgetBelowTheMinimum() {
    assertThatThrownBy(() -> new RecordCache(1000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("below the minimum");
  }
}
