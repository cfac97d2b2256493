package io.flexlog.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.consumer.ColorShard;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupRecordDescriptorTest {
  @Test
  void shouldRoundTripEveryRecordType() {
    GroupState.Snapshot snapshot =
        new GroupState.Snapshot(
            4,
            3,
            List.of(new GroupState.Member("m-1", 3000, 77, List.of("a", "b"))),
            Map.of(ColorShard.of("a", 2), new GroupState.Owner("m-1", 3)),
            Map.of(ColorShard.wholeColor("b"), 99L),
            Map.of(ColorShard.wholeColor("b"), new GroupState.CommitMark("m-1", 7)));
    List<GroupRecord> records =
        List.of(
            new GroupRecord.Join("m-1", 3000, List.of("a", "b")),
            new GroupRecord.Heartbeat("m-1"),
            new GroupRecord.Leave("m-1"),
            new GroupRecord.Expel("m-2", 12),
            new GroupRecord.Assign(4, Map.of(ColorShard.of("a", 2), "m-1")),
            new GroupRecord.Commit("m-1", true, 4, 9, Map.of(ColorShard.of("a", 2), 1L << 32)),
            new GroupRecord.Reset(Map.of(ColorShard.wholeColor("b"), 0L)),
            new GroupRecord.Checkpoint(1234, snapshot),
            new GroupRecord.Sync(-5));
    for (GroupRecord record : records) {
      assertThat(GroupRecordDescriptor.decode(GroupRecordDescriptor.encode(record)))
          .isEqualTo(record);
    }
  }

  @Test
  void shouldStartWithMagicVersionAndType() {
    byte[] bytes = GroupRecordDescriptor.encode(new GroupRecord.Sync(1));
    assertThat(Arrays.copyOf(bytes, 4)).containsExactly(0x46, 0x47, 1, GroupRecordDescriptor.SYNC);
    assertThat(bytes).hasSize(12);
  }

  @Test
  void shouldNameWhatIsWrongWithABadRecord() {
    assertThatThrownBy(() -> GroupRecordDescriptor.decode("hello".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad magic");
    byte[] commit =
        GroupRecordDescriptor.encode(
            new GroupRecord.Commit("m", false, 1, 1, Map.of(ColorShard.of("a", 0), 5L)));
    assertThatThrownBy(() -> GroupRecordDescriptor.decode(Arrays.copyOf(commit, commit.length - 3)))
        .hasMessageContaining("truncated");
    byte[] wrongType = GroupRecordDescriptor.encode(new GroupRecord.Sync(1));
    wrongType[3] = 42;
    assertThatThrownBy(() -> GroupRecordDescriptor.decode(wrongType))
        .hasMessageContaining("type 42 unknown");
  }
}
