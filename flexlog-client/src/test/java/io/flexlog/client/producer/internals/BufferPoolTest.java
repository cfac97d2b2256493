package io.flexlog.client.producer.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.FlexLogTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BufferPoolTest {
  private static long in(long ms) {
    return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
  }

  @Test
  void shouldThrowAfterTheDeadlineWhenNoRoomComesFreeAndTakeNothing() throws Exception {
    BufferPool pool = new BufferPool(1000);
    pool.reserve(800, in(0), 0);

    assertThatThrownBy(() -> pool.reserve(300, in(50), 50))
        .isInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("buffer.memory=1000 is full (800 bytes")
        .hasMessageContaining("max.block.ms=50");
    assertThat(pool.availableBytes()).isEqualTo(200);
    assertThat(pool.waiters()).isZero();
  }

  @Test
  void shouldLetAWaitingSenderThroughOnceEnoughIsReleased() throws Exception {
    BufferPool pool = new BufferPool(1000);
    pool.reserve(800, in(0), 0);
    CompletableFuture<Void> waiting =
        CompletableFuture.runAsync(
            () -> {
              try {
                pool.reserve(300, in(10_000), 10_000);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    while (pool.waiters() == 0) {
      Thread.onSpinWait();
    }

    pool.release(100); // below the wake-up threshold: the waiter finds it on its own re-check

    waiting.get(5, TimeUnit.SECONDS);
    assertThat(pool.availableBytes()).isZero();
  }

  @Test
  void shouldLetARecordLargerThanTheBufferThroughWhenNothingElseIsInFlight() throws Exception {
    BufferPool pool = new BufferPool(1000);
    pool.reserve(5000, in(0), 0);
    assertThat(pool.availableBytes()).isEqualTo(-4000);
    pool.release(5000);
    assertThat(pool.availableBytes()).isEqualTo(1000);
  }
}
