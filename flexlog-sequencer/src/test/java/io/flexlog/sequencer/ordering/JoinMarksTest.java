package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JoinMarks}: one mark per version, bounded by merging the oldest into a smaller one. */
class JoinMarksTest {
  @Test
  void shouldKeepOneMarkPerVersion() {
    JoinMarks marks = new JoinMarks();
    assertThat(marks.add(2, 10, new int[] {5})).isTrue();
    assertThat(marks.add(2, 12, new int[] {6})).isFalse();
    assertThat(marks.count()).isEqualTo(1);
    assertThat(marks.sn(0)).isEqualTo(10);
    assertThat(marks.joined(0, 5)).isTrue();
    assertThat(marks.joined(0, 6)).isFalse();
  }

  @Test
  void shouldMergeTheOldestIntoTheNewerVersionWithTheSmallerSnBeyondTheBound() {
    JoinMarks marks = new JoinMarks();
    for (int v = 1; v <= JoinMarks.MAX_MARKS + 1; v++) {
      marks.add(v, 100L * v, new int[] {v, 1000});
    }
    assertThat(marks.count()).isEqualTo(JoinMarks.MAX_MARKS);
    // Versions 1 and 2 became one mark: version 2 at version 1's SN, for the shards both name.
    assertThat(marks.version(0)).isEqualTo(2);
    assertThat(marks.sn(0)).isEqualTo(100);
    assertThat(marks.joined(0, 1000)).isTrue();
    assertThat(marks.joined(0, 1)).isFalse();
    assertThat(marks.joined(0, 2)).isFalse();
    assertThat(marks.version(JoinMarks.MAX_MARKS - 1)).isEqualTo(JoinMarks.MAX_MARKS + 1);
  }

  @Test
  void shouldRoundTripThroughTheStoreForm() {
    JoinMarks marks = new JoinMarks();
    marks.add(2, 10, new int[] {5, 6});
    marks.add(4, 30, new int[0]);
    JoinMarks loaded = new JoinMarks();
    loaded.load(marks.toList());
    assertThat(loaded.toList())
        .isEqualTo(
            List.of(
                new JoinMarkStore.Mark(2, 10, List.of(5, 6)),
                new JoinMarkStore.Mark(4, 30, List.of())));
  }

  @Test
  void shouldMergeStoredListsByVersionKeepingTheSmallerSnAndTheBound() {
    JoinMarkStore.Mark a2 = new JoinMarkStore.Mark(2, 10, List.of(5));
    JoinMarkStore.Mark b2 = new JoinMarkStore.Mark(2, 8, List.of(5, 6));
    JoinMarkStore.Mark b3 = new JoinMarkStore.Mark(3, 20, List.of(7));
    assertThat(JoinMarkStore.merge(List.of(a2), List.of(b3, b2)))
        .containsExactly(new JoinMarkStore.Mark(2, 8, List.of(5)), b3);

    List<JoinMarkStore.Mark> many = new java.util.ArrayList<>();
    for (int v = 1; v <= JoinMarkStore.MAX_MARKS + 2; v++) {
      many.add(new JoinMarkStore.Mark(v, 100L * v, List.of()));
    }
    List<JoinMarkStore.Mark> merged = JoinMarkStore.merge(many, List.of());
    assertThat(merged).hasSize(JoinMarkStore.MAX_MARKS);
    assertThat(merged.get(0)).isEqualTo(new JoinMarkStore.Mark(3, 100, List.of()));
  }
}
