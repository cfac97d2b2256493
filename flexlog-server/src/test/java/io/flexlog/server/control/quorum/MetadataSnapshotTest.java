package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import io.flexlog.server.control.CorruptMetadataException;
import io.flexlog.server.control.MetadataFileDescriptor;
import io.flexlog.server.control.MetadataStore;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MetadataSnapshot}: the join marks of format version 2, and version 1 still read. */
class MetadataSnapshotTest {
  private static final Topology TOPOLOGY =
      new Topology(
          4,
          List.of(
              new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 7070),
              new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", 7071)),
          List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0)),
          List.of(new Shard(0, Color.GLOBAL_ID, List.of(1))));

  @TempDir Path dir;

  @Test
  void shouldRoundTripTheJoinMarks() throws Exception {
    Path file = dir.resolve("snapshot");
    Map<Integer, RoleLease> leases = Map.of(0, new RoleLease(0, 0, 3, 17));
    Map<Integer, List<Mark>> marks =
        Map.of(0, List.of(new Mark(2, 5, List.of(3)), new Mark(4, 9, List.of())));
    MetadataSnapshot.write(file, TOPOLOGY, leases, marks);
    MetadataSnapshot.State state = MetadataSnapshot.read(file);
    assertThat(state.topology()).isEqualTo(TOPOLOGY);
    assertThat(state.leases()).isEqualTo(leases);
    assertThat(state.joinMarks()).isEqualTo(marks);
  }

  @Test
  void shouldReadAVersionOneSnapshotWithoutMarks() throws Exception {
    Path file = dir.resolve("snapshot");
    byte[] topologyFile = MetadataStore.encode(TOPOLOGY);
    ByteBuffer buf = ByteBuffer.allocate(MetadataSnapshot.HEADER_LENGTH + topologyFile.length + 20);
    buf.putInt(MetadataSnapshot.MAGIC).putShort((short) 1).putShort((short) 0);
    buf.putInt(1).putInt(topologyFile.length).putInt(0).put(topologyFile);
    buf.putInt(0).putInt(0).putInt(3).putLong(17);
    byte[] bytes = buf.array();
    int crc =
        MetadataFileDescriptor.crc(
            bytes, MetadataSnapshot.HEADER_LENGTH, bytes.length - MetadataSnapshot.HEADER_LENGTH);
    ByteBuffer.wrap(bytes).putInt(16, crc);
    Files.write(file, bytes);
    MetadataSnapshot.State state = MetadataSnapshot.read(file);
    assertThat(state.leases()).isEqualTo(Map.of(0, new RoleLease(0, 0, 3, 17)));
    assertThat(state.joinMarks()).isEmpty();
  }

  @Test
  void shouldRefuseMarksCutShort() throws Exception {
    Path file = dir.resolve("snapshot");
    MetadataSnapshot.write(
        file, TOPOLOGY, Map.of(), Map.of(0, List.of(new Mark(2, 5, List.of(3)))));
    byte[] bytes = Files.readAllBytes(file);
    byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 4);
    int crc =
        MetadataFileDescriptor.crc(
            cut, MetadataSnapshot.HEADER_LENGTH, cut.length - MetadataSnapshot.HEADER_LENGTH);
    ByteBuffer.wrap(cut).putInt(16, crc);
    Files.write(file, cut);
    assertThatThrownBy(() -> MetadataSnapshot.read(file))
        .isInstanceOf(CorruptMetadataException.class)
        .hasMessageContaining("join marks");
  }
}
