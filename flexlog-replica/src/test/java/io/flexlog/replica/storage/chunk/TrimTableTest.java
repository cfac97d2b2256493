package io.flexlog.replica.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.storage.StorageException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trim table's layout, crash order and limits, over plain memory with a recording flusher. */
class TrimTableTest {
  private final List<String> flushes = new ArrayList<>();
  private final ChunkMemory region =
      new ByteBufChunkMemory(
          ByteBuffer.allocateDirect(TrimTableDescriptor.LENGTH),
          (offset, length) -> flushes.add(offset + "+" + length));

  @Test
  void shouldWriteANewColorsSlotBeforeTheCountThatCoversIt() {
    TrimTable.format(region);
    TrimTable table = TrimTable.open(region, "test");
    flushes.clear();

    assertThat(table.raise(42, 1000)).isTrue();

    assertThat(flushes).containsExactly("64+16", "12+4");
    assertThat(region.getInt(TrimTableDescriptor.slotOffset(0))).isEqualTo(42);
    assertThat(region.getLong(TrimTableDescriptor.slotOffset(0) + 8)).isEqualTo(1000);
    assertThat(region.getInt(TrimTableDescriptor.SLOTS_USED_OFFSET)).isEqualTo(1);
  }

  @Test
  void shouldRaiseAnExistingColorWithOneEightByteStore() {
    TrimTable.format(region);
    TrimTable table = TrimTable.open(region, "test");
    table.raise(7, 10);
    flushes.clear();

    assertThat(table.raise(7, 5)).isFalse();
    assertThat(table.raise(7, 20)).isTrue();

    assertThat(flushes).containsExactly("72+8");
    assertThat(TrimTable.open(region, "test").trimPoint(7)).isEqualTo(20);
  }

  @Test
  void shouldIgnoreATornSlotBeyondTheCount() {
    TrimTable.format(region);
    // A slot written but the count never updated: as after a crash between the two flushes.
    region.putInt(TrimTableDescriptor.slotOffset(0), 9);
    region.putLong(TrimTableDescriptor.slotOffset(0) + 8, 77);

    TrimTable table = TrimTable.open(region, "test");

    assertThat(table.trimPoint(9)).isZero();
    assertThat(table.snapshot().trimPoint(9)).isZero();
  }

  @Test
  void shouldRefuseMoreColorsThanTheTableHolds() {
    TrimTable.format(region);
    TrimTable table = TrimTable.open(region, "test");
    for (int color = 0; color < TrimTableDescriptor.MAX_SLOTS; color++) {
      table.raise(color, color + 1L);
    }

    assertThatThrownBy(() -> table.raise(-1, 1))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("trim table full")
        .hasMessageContaining("cannot trim color -1");
    TrimTable reopened = TrimTable.open(region, "test");
    assertThat(reopened.trimPoint(4000)).isEqualTo(4001);
    assertThat(reopened.snapshot().trimPoint(17)).isEqualTo(18);
  }

  @Test
  void shouldRejectARegionThatIsNotATrimTable() {
    region.putLong(0, 0x1234);

    assertThatThrownBy(() -> TrimTable.open(region, "trim-points.tbl"))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("trim-points.tbl is not a FlexLog trim table");
  }
}
