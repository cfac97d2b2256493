package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpochStoreTest {
  @TempDir Path dir;

  @Test
  void shouldStartAtEpochOneOnAnEmptyDirectory() throws IOException {
    EpochStore store = EpochStore.open(dir.resolve("fresh"));

    assertThat(store.current()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("fresh").resolve("epoch"))).isEqualTo("1\n");
  }

  @Test
  void shouldPersistALargerEpochOnEveryOpen() throws IOException {
    int first = EpochStore.open(dir).current();
    int second = EpochStore.open(dir).current();
    int third = EpochStore.open(dir).current();

    assertThat(second).isEqualTo(first + 1);
    assertThat(third).isEqualTo(second + 1);
    assertThat(Files.readString(dir.resolve("epoch"))).isEqualTo(third + "\n");
  }

  @Test
  void shouldPersistAdvanceBeforeReturningIt() throws IOException {
    EpochStore store = EpochStore.open(dir);

    int advanced = store.advance();

    assertThat(advanced).isEqualTo(2);
    assertThat(store.current()).isEqualTo(2);
    assertThat(EpochStore.open(dir).current()).isEqualTo(3);
  }

  @Test
  void shouldIgnoreALeftoverTempFileFromACrashBeforeTheRename() throws IOException {
    EpochStore.open(dir);
    Files.writeString(dir.resolve("epoch.tmp"), "9", StandardCharsets.US_ASCII);

    assertThat(EpochStore.open(dir).current()).isEqualTo(2);
  }

  @Test
  void shouldRefuseACorruptEpochFileNamingItAndItsContent() throws IOException {
    Files.writeString(dir.resolve("epoch"), "12x\n", StandardCharsets.US_ASCII);

    assertThatThrownBy(() -> EpochStore.open(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("corrupt epoch file " + dir.resolve("epoch"))
        .hasMessageContaining("'12x\\n'");
    assertThat(Files.readString(dir.resolve("epoch"))).isEqualTo("12x\n");
  }

  @Test
  void shouldRefuseAnEmptyOrOutOfRangeEpochFile() throws IOException {
    for (String content :
        new String[] {"", "0\n", "2147483648\n", "-3\n", "99999999999999999999"}) {
      Files.writeString(dir.resolve("epoch"), content, StandardCharsets.US_ASCII);

      assertThatThrownBy(() -> EpochStore.open(dir))
          .as("content '%s'", content)
          .hasMessageContaining("corrupt epoch file");
    }
  }

  @Test
  void shouldRefuseToWrapPastTheLargestEpoch() throws IOException {
    Files.writeString(dir.resolve("epoch"), Integer.MAX_VALUE + "\n");

    assertThatThrownBy(() -> EpochStore.open(dir)).hasMessageContaining("epoch space exhausted");
  }
}
