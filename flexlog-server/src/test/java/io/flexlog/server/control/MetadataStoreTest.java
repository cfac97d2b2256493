package io.flexlog.server.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MetadataStoreTest {
  private static final Topology V1 = TestTopologies.twoLevel(4);
  private static final Topology V2 =
      new Topology(
          2,
          List.copyOf(V1.nodes().values()),
          List.of(
              V1.colors().get(0), V1.colors().get(1), new Color(2, "orders", Color.GLOBAL_ID, 0)),
          V1.shards());

  @TempDir Path dir;

  private Path file() {
    return dir.resolve(MetadataStore.FILE_NAME);
  }

  @Test
  void shouldLoadNothingFromAFreshDirectory() throws Exception {
    assertThat(new MetadataStore(dir.resolve("new")).load()).isEmpty();
  }

  @Test
  void shouldRoundTripTheTopologyAcrossInstances() throws Exception {
    new MetadataStore(dir).write(V1);
    assertThat(new MetadataStore(dir).load()).contains(V1);

    new MetadataStore(dir).write(V2);
    assertThat(new MetadataStore(dir).load()).contains(V2);
    assertThat(Files.exists(dir.resolve(MetadataStore.TEMP_NAME))).isFalse();
  }

  @Test
  void shouldWriteTheDocumentedHeader() throws Exception {
    new MetadataStore(dir).write(V2);
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file()));

    assertThat(bytes.getInt(MetadataFileDescriptor.MAGIC_OFFSET)).isEqualTo(0x464C584D);
    assertThat(bytes.getShort(MetadataFileDescriptor.FORMAT_VERSION_OFFSET)).isEqualTo((short) 1);
    assertThat(bytes.getShort(MetadataFileDescriptor.FLAGS_OFFSET)).isZero();
    assertThat(bytes.getLong(MetadataFileDescriptor.TOPOLOGY_VERSION_OFFSET)).isEqualTo(2);
    assertThat(bytes.getInt(MetadataFileDescriptor.BODY_LENGTH_OFFSET))
        .isEqualTo(bytes.capacity() - MetadataFileDescriptor.HEADER_LENGTH);
  }

  static List<Arguments> corruptions() {
    return List.of(
        Arguments.of("bad magic", (Consumer<byte[]>) b -> b[0] = 'X', "bad magic"),
        Arguments.of(
            "unknown format",
            (Consumer<byte[]>) b -> b[MetadataFileDescriptor.FORMAT_VERSION_OFFSET + 1] = 9,
            "format version 9 is not supported"),
        Arguments.of(
            "flags",
            (Consumer<byte[]>) b -> b[MetadataFileDescriptor.FLAGS_OFFSET] = 1,
            "unknown flags"),
        Arguments.of(
            "flipped body byte",
            (Consumer<byte[]>) b -> b[b.length - 3] ^= 0x40,
            "checksum mismatch"),
        Arguments.of(
            "header version differs from body",
            (Consumer<byte[]>) b -> b[MetadataFileDescriptor.TOPOLOGY_VERSION_OFFSET + 7] = 7,
            "header says topology version 7, body says 2"),
        Arguments.of(
            "body length too large",
            (Consumer<byte[]>) b -> b[MetadataFileDescriptor.BODY_LENGTH_OFFSET + 3] += 1,
            "truncated: header says"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corruptions")
  void shouldRefuseACorruptFileNamingItAndTheProblem(
      String name, Consumer<byte[]> damage, String problem) throws Exception {
    new MetadataStore(dir).write(V2);
    byte[] bytes = Files.readAllBytes(file());
    damage.accept(bytes);
    Files.write(file(), bytes);

    assertThatThrownBy(() -> new MetadataStore(dir).load())
        .isInstanceOf(CorruptMetadataException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining(problem)
        .hasMessageContaining("refusing to start");
  }

  @Test
  void shouldRefuseATruncatedFile() throws Exception {
    new MetadataStore(dir).write(V2);
    byte[] bytes = Files.readAllBytes(file());
    Files.write(file(), java.util.Arrays.copyOf(bytes, bytes.length - 5));
    assertThatThrownBy(() -> new MetadataStore(dir).load())
        .isInstanceOf(CorruptMetadataException.class)
        .hasMessageContaining("truncated");

    Files.write(file(), java.util.Arrays.copyOf(bytes, 10));
    assertThatThrownBy(() -> new MetadataStore(dir).load())
        .isInstanceOf(CorruptMetadataException.class)
        .hasMessageContaining("shorter than the 24-byte header");
  }

  @Test
  void shouldRefuseAnInconsistentTopologyWithAValidChecksum() throws Exception {
    // A shard on a node that is not in the topology: well-formed bytes, inconsistent content.
    io.flexlog.admin.v1.Topology bad =
        io.flexlog.core.admin.TopologyProtos.toProto(V1).toBuilder()
            .addShards(
                io.flexlog.admin.v1.Shard.newBuilder().setId(9).setColorId(1).addReplicaNodeIds(99))
            .build();
    Files.write(file(), MetadataFileDescriptor.encode(1, bad.toByteArray()));

    assertThatThrownBy(() -> new MetadataStore(dir).load())
        .isInstanceOf(CorruptMetadataException.class)
        .hasMessageContaining("unknown replica node 99");
  }

  @Test
  void shouldKeepTheOldTopologyWhenACrashHitsBeforeTheRename() throws Exception {
    new MetadataStore(dir).write(V1);
    DurableFiles.FileOps crashBeforeRename =
        new RecordingOps() {
          @Override
          public void rename(Path from, Path to) throws IOException {
            throw new IOException("simulated crash before rename");
          }
        };

    assertThatThrownBy(() -> new MetadataStore(dir, crashBeforeRename).write(V2))
        .hasMessageContaining("simulated crash");

    // The new version is fully written and synced in the temp file, but not renamed: a restarted
    // node sees the old version, whole.
    assertThat(Files.exists(dir.resolve(MetadataStore.TEMP_NAME))).isTrue();
    assertThat(new MetadataStore(dir).load()).contains(V1);
    new MetadataStore(dir).write(V2);
    assertThat(new MetadataStore(dir).load()).contains(V2);
  }

  @Test
  void shouldIgnoreATornTempFileLeftByACrashDuringTheWrite() throws Exception {
    new MetadataStore(dir).write(V1);
    byte[] next =
        MetadataFileDescriptor.encode(
            2, io.flexlog.core.admin.TopologyProtos.toProto(V2).toByteArray());
    Files.write(dir.resolve(MetadataStore.TEMP_NAME), java.util.Arrays.copyOf(next, 17));

    assertThat(new MetadataStore(dir).load()).contains(V1);
  }

  @Test
  void shouldSyncTheFileBeforeTheRenameAndTheDirectoryAfterIt() throws Exception {
    RecordingOps ops = new RecordingOps();
    new MetadataStore(dir, ops).write(V1);

    assertThat(ops.steps)
        .containsExactly(
            "force " + MetadataStore.TEMP_NAME,
            "rename " + MetadataStore.TEMP_NAME + " -> " + MetadataStore.FILE_NAME,
            "sync dir");
  }

  /** Performs the real steps and records them. */
  private class RecordingOps implements DurableFiles.FileOps {
    final List<String> steps = new ArrayList<>();

    @Override
    public void force(FileChannel channel) throws IOException {
      steps.add("force " + MetadataStore.TEMP_NAME);
      DurableFiles.REAL.force(channel);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
      steps.add("rename " + from.getFileName() + " -> " + to.getFileName());
      DurableFiles.REAL.rename(from, to);
    }

    @Override
    public void syncDirectory(Path d) throws IOException {
      steps.add("sync dir");
      DurableFiles.REAL.syncDirectory(d);
    }
  }
}
