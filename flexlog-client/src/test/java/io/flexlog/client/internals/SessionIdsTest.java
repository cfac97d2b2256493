package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SessionIdsTest {
  @Test
  void shouldGiveEveryClientItsOwnId() {
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      ids.add(SessionIds.random());
    }
    // 1,000 draws of 64 random bits: a repeat would be a broken source, not bad luck.
    assertThat(ids).hasSize(1000);
    assertThat(ids).doesNotContain(0L);
  }
}
