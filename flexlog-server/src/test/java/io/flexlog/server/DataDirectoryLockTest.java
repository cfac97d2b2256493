package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryLockTest {
  @TempDir Path dir;

  @Test
  void shouldRefuseASecondHolderNamingTheDirectoryAndTheFirst() throws Exception {
    Path data = dir.resolve("data");
    try (DataDirectoryLock first = DataDirectoryLock.acquire(data, "replica node 1")) {
      assertThatThrownBy(() -> DataDirectoryLock.acquire(data, "replica node 2"))
          .isInstanceOf(DataDirectoryLockedException.class)
          .hasMessageContaining("data directory " + data.toAbsolutePath())
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageContaining("replica node 1")
          .hasMessageNotContaining("replica node 2");
    }
    try (DataDirectoryLock again = DataDirectoryLock.acquire(data, "replica node 2")) {
      assertThat(Files.readString(data.resolve(DataDirectoryLock.FILE_NAME)))
          .contains("replica node 2");
    }
  }

  @Test
  void shouldRemoveTheDirectoriesItCreatedAfterAFailedStart() throws Exception {
    Path data = dir.resolve("a").resolve("b");
    DataDirectoryLock lock = DataDirectoryLock.acquire(data, "dev");
    Files.writeString(data.resolve("epoch"), "1\n");
    lock.closeAfterFailedStart();
    assertThat(dir.resolve("a")).doesNotExist();
  }

  @Test
  void shouldKeepAnExistingDirectoryAfterAFailedStart() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("epoch"), "3\n");
    DataDirectoryLock lock = DataDirectoryLock.acquire(data, "dev");
    lock.closeAfterFailedStart();
    assertThat(data.resolve("epoch")).hasContent("3");
    try (DataDirectoryLock again = DataDirectoryLock.acquire(data, "dev")) {
      assertThat(again.dir()).isEqualTo(data.toAbsolutePath());
    }
  }
}
