package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JoinMarkFile}: the join marks a sequencer node's roles took, across restarts. */
class JoinMarkFileTest {
  @TempDir Path dir;

  @Test
  void shouldLoadWhatWasSavedInANewInstance() throws IOException {
    JoinMarkFile file = JoinMarkFile.open(dir, 4);
    assertThat(file.load(0)).isEmpty();
    List<Mark> global =
        List.of(new Mark(2, 17L << 32 | 5, List.of(7)), new Mark(5, 18L << 32 | 1, List.of()));
    List<Mark> left = List.of(new Mark(3, 9L << 32 | 44, List.of(8, 9)));
    file.save(0, global);
    file.save(1, left);

    JoinMarkFile again = JoinMarkFile.open(dir, 4);
    assertThat(again.load(0)).isEqualTo(global);
    assertThat(again.load(1)).isEqualTo(left);
    assertThat(again.load(2)).isEmpty();
  }

  @Test
  void shouldWriteNothingWhenOpened() throws IOException {
    JoinMarkFile.open(dir, 4);
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void shouldRefuseAnotherNodesFile() throws IOException {
    JoinMarkFile.open(dir, 4).save(0, List.of(new Mark(2, 5, List.of(1))));
    assertThatThrownBy(() -> JoinMarkFile.open(dir, 5))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("belongs to sequencer node 4, not to node 5");
  }

  @Test
  void shouldRefuseACorruptFileNamingIt() throws IOException {
    JoinMarkFile.open(dir, 4).save(0, List.of(new Mark(2, 5, List.of(1))));
    Path path = dir.resolve(JoinMarkFile.FILE_NAME);
    byte[] bytes = Files.readAllBytes(path);
    bytes[bytes.length - 1] ^= 1;
    Files.write(path, bytes);
    assertThatThrownBy(() -> JoinMarkFile.open(dir, 4))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("corrupt join marks file " + path)
        .hasMessageContaining("checksum mismatch");
    Files.write(path, new byte[] {1, 2, 3});
    assertThatThrownBy(() -> JoinMarkFile.open(dir, 4))
        .hasMessageContaining("not a FlexLog join marks file");
  }
}
