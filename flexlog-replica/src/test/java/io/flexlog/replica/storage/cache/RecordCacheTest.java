package io.flexlog.replica.storage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

  private boolean putAppended(long address, int length) {
    ByteBuf source = Unpooled.wrappedBuffer(bytes(address, length));
    return cache.putAppended(address, source, 0, length);
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

  @Test
  void shouldFindAppendedRecordsAcrossBlocksAndForgetThemWithTheirBlock() {
    cache = new RecordCache(256 * 1024); // four blocks of 64 KiB
    int perBlock = cache.blockBytes() / CacheRecordDescriptor.recordLength(1000);
    // Addresses with gaps, as log addresses have: a miss between two cached ones must stay a miss.
    for (long i = 0; i < 4L * perBlock; i++) {
      assertThat(putAppended(i * 1040, 1000)).isTrue();
    }
    assertThat(cache.records()).isEqualTo(4 * perBlock);
    for (long i = 4L * perBlock - 1; i >= 0; i--) { // backwards: no help from the cursor
      assertThat(copy(cache.view(i * 1040))).isEqualTo(bytes(i * 1040, 1000));
      assertThat(cache.contains(i * 1040 + 8)).isFalse();
    }

    putAppended(4L * perBlock * 1040, 1000); // the clock empties the first block

    assertThat(cache.contains(0)).isFalse();
    assertThat(cache.contains((perBlock - 1) * 1040L)).isFalse();
    assertThat(cache.contains(perBlock * 1040L)).isTrue();
    assertThat(cache.records()).isEqualTo(3 * perBlock + 1);
  }

  @Test
  void shouldIndexAnAppendedAddressBelowAnEarlierOneInTheHashMap() {
    cache = new RecordCache(1 << 20);
    putAppended(1000, 100);
    putAppended(500, 100); // not expected from the log; must still be found, not break the run

    assertThat(copy(cache.view(500))).isEqualTo(bytes(500, 100));
    assertThat(copy(cache.view(1000))).isEqualTo(bytes(1000, 100));
    assertThat(cache.records()).isEqualTo(2);
  }

  /**
   * A random mix of appends (growing addresses) and puts after reads (any address, cached or not),
   * read back through every accessor. After every step: what the cache says it holds has the bytes
   * that were put under that address, the record just put is there, the budget holds; every 64
   * steps, {@link RecordCache#records()} equals the addresses it answers for.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void shouldAnswerWithTheBytesPutUnderAnAddressThroughAnyMixOfAppendsAndReads(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    cache = new RecordCache(256 * 1024);
    List<Long> known = new ArrayList<>();
    long next = 1;
    for (int step = 0; step < 20_000; step++) {
      long address;
      int length;
      if (known.isEmpty() || random.nextInt(4) > 0) {
        next += 8 + random.nextInt(3000);
        address = next;
        length = (int) (address % 2500);
        putAppended(address, length);
        known.add(address);
      } else {
        address = known.get(random.nextInt(known.size()));
        length = (int) (address % 2500);
        put(address, length);
      }
      assertThat(cache.contains(address)).isTrue();
      assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacityBytes());
      long probe = known.get(random.nextInt(known.size()));
      int probeLength = (int) (probe % 2500);
      if (cache.contains(probe)) {
        assertThat(cache.length(probe)).isEqualTo(probeLength);
        ByteBuf retained = cache.retainedView(probe);
        assertThat(copy(retained)).isEqualTo(bytes(probe, probeLength));
        retained.release();
        ByteBuf dst = Unpooled.buffer();
        assertThat(cache.copyOut(probe, dst, Integer.MAX_VALUE)).isEqualTo(probeLength);
        assertThat(copy(dst)).isEqualTo(bytes(probe, probeLength));
      } else {
        assertThat(cache.view(probe)).isNull();
        assertThat(cache.copyOut(probe, Unpooled.buffer(), 100)).isEqualTo(RecordCache.NOT_CACHED);
      }
      assertThat(cache.contains(probe + 1)).as("no address between records").isFalse();
      if (step % 64 == 0) {
        assertThat(cache.records()).isEqualTo((int) known.stream().filter(cache::contains).count());
      }
    }
    assertThat(cache.evictedBlocks()).isPositive();
  }
}
