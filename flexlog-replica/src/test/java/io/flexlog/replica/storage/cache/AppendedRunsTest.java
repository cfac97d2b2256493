package io.flexlog.replica.storage.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AppendedRunsTest {
  private static long location(int block, int offset) {
    return ((long) block << 32) | offset;
  }

  @Test
  void shouldFindEveryAddedAddressInItsBlockAndNothingBetweenThem() {
    AppendedRuns runs = new AppendedRuns(3);
    for (int i = 0; i < 1000; i++) { // grows past the initial arrays of each block
      runs.add(i / 400, 100 + 10L * i, 8 * i);
    }

    assertThat(runs.size()).isEqualTo(1000);
    for (int i = 999; i >= 0; i--) {
      assertThat(runs.find(100 + 10L * i)).isEqualTo(location(i / 400, 8 * i));
      assertThat(runs.find(105 + 10L * i)).isEqualTo(-1L);
    }
    for (int i = 0; i < 1000; i += 7) { // forward with gaps: neither the cursor nor its next slot
      assertThat(runs.find(100 + 10L * i)).isEqualTo(location(i / 400, 8 * i));
    }
    assertThat(runs.find(99)).isEqualTo(-1L);
    assertThat(runs.find(100 + 10L * 1000)).isEqualTo(-1L);
  }

  @Test
  void shouldForgetAClearedBlockAndReuseItForLaterAddresses() {
    AppendedRuns runs = new AppendedRuns(2);
    runs.add(0, 10, 0);
    runs.add(0, 20, 100);
    runs.add(1, 30, 0);

    runs.clear(0);

    assertThat(runs.size()).isEqualTo(1);
    assertThat(runs.find(10)).isEqualTo(-1L);
    assertThat(runs.find(20)).isEqualTo(-1L);
    assertThat(runs.find(30)).isEqualTo(location(1, 0));

    runs.add(0, 40, 0); // the emptied block takes newer records
    assertThat(runs.find(40)).isEqualTo(location(0, 0));
    assertThat(runs.find(30)).isEqualTo(location(1, 0));

    runs.clear(1);
    runs.clear(0);
    assertThat(runs.size()).isZero();
    assertThat(runs.find(40)).isEqualTo(-1L);
  }

  @Test
  void shouldAcceptOnlyAddressesAboveEveryAddressAddedBefore() {
    AppendedRuns runs = new AppendedRuns(1);
    assertThat(runs.accepts(Long.MIN_VALUE + 1)).isTrue();
    runs.add(0, 50, 0);

    assertThat(runs.accepts(50)).isFalse();
    assertThat(runs.accepts(49)).isFalse();
    assertThat(runs.accepts(51)).isTrue();
    runs.clear(0);
    assertThat(runs.accepts(50)).as("even after its block was emptied").isFalse();
  }
}
