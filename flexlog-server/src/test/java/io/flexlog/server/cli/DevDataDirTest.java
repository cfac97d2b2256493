package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DevDataDirTest {
  @Test
  void shouldUseXdgDataHomeWhenItIsAnAbsolutePath() {
    assertThat(DevDataDir.defaultDir("dev", Map.of("XDG_DATA_HOME", "/data/me"), "/home/me"))
        .isEqualTo(Path.of("/data/me/flexlog/dev"));
  }

  @Test
  void shouldFallBackToLocalShareWhenXdgDataHomeIsUnsetEmptyOrRelative() {
    Path expected = Path.of("/home/me/.local/share/flexlog/dev-tree");
    assertThat(DevDataDir.defaultDir("dev-tree", Map.of(), "/home/me")).isEqualTo(expected);
    assertThat(DevDataDir.defaultDir("dev-tree", Map.of("XDG_DATA_HOME", ""), "/home/me"))
        .isEqualTo(expected);
    assertThat(DevDataDir.defaultDir("dev-tree", Map.of("XDG_DATA_HOME", "rel"), "/home/me"))
        .isEqualTo(expected);
  }

  @Test
  void shouldNeverDefaultIntoTheWorkingDirectory() {
    Path dir = DevDataDir.defaultDir("dev");
    Path cwd = Path.of("").toAbsolutePath();
    assertThat(dir.isAbsolute()).isTrue();
    assertThat(dir.startsWith(cwd)).as(dir + " under " + cwd).isFalse();
  }
}
