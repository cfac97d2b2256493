package io.flexlog.core.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableFilesTest {
  @TempDir Path dir;

  @Test
  void shouldCreateTheFileAndLeaveNoTempFile() throws Exception {
    Path file = dir.resolve("state");

    DurableFiles.writeAtomically(file, bytes("one\n"));

    assertThat(Files.readString(file)).isEqualTo("one\n");
    assertThat(Files.exists(dir.resolve("state.tmp"))).isFalse();
  }

  @Test
  void shouldReplaceTheWholeContentOfALongerFile() throws Exception {
    Path file = dir.resolve("state");
    DurableFiles.writeAtomically(file, bytes("a much longer first version\n"));

    DurableFiles.writeAtomically(file, bytes("2\n"));

    assertThat(Files.readString(file)).isEqualTo("2\n");
  }

  @Test
  void shouldOverwriteATornTempFileLeftByACrash() throws Exception {
    Path file = dir.resolve("state");
    Files.write(DurableFiles.tempFile(file), bytes("torn garbage that is longer"));

    DurableFiles.writeAtomically(file, bytes("new"));

    assertThat(Files.readString(file)).isEqualTo("new");
    assertThat(Files.exists(DurableFiles.tempFile(file))).isFalse();
  }

  @Test
  void shouldSyncTheTempFileThenRenameThenSyncTheDirectory() throws Exception {
    Path file = dir.resolve("state");
    List<String> steps = new ArrayList<>();

    DurableFiles.writeAtomically(file, bytes("x"), new RecordingOps(steps));

    assertThat(steps)
        .containsExactly("force", "rename state.tmp -> state", "sync " + dir.getFileName());
  }

  @Test
  void shouldKeepTheOldContentWhenACrashHitsBeforeTheRename() throws Exception {
    Path file = dir.resolve("state");
    DurableFiles.writeAtomically(file, bytes("old"));
    DurableFiles.FileOps crashBeforeRename =
        new RecordingOps(new ArrayList<>()) {
          @Override
          public void rename(Path from, Path to) throws IOException {
            throw new IOException("simulated crash before rename");
          }
        };

    assertThatThrownBy(() -> DurableFiles.writeAtomically(file, bytes("new"), crashBeforeRename))
        .hasMessageContaining("simulated crash");

    assertThat(Files.readString(file)).isEqualTo("old");
    assertThat(Files.readString(DurableFiles.tempFile(file))).isEqualTo("new");
  }

  @Test
  void shouldNameTheTempFileAfterTheTargetInTheSameDirectory() {
    assertThat(DurableFiles.tempFile(dir.resolve("epoch"))).isEqualTo(dir.resolve("epoch.tmp"));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** Performs the real steps and records them. */
  private static class RecordingOps implements DurableFiles.FileOps {
    private final List<String> steps;

    RecordingOps(List<String> steps) {
      this.steps = steps;
    }

    @Override
    public void force(FileChannel channel) throws IOException {
      steps.add("force");
      DurableFiles.REAL.force(channel);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
      steps.add("rename " + from.getFileName() + " -> " + to.getFileName());
      DurableFiles.REAL.rename(from, to);
    }

    @Override
    public void syncDirectory(Path d) throws IOException {
      steps.add("sync " + d.getFileName());
      DurableFiles.REAL.syncDirectory(d);
    }
  }
}
