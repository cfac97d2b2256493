package io.flexlog.server.cli;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where {@code dev} keeps its data without {@code --data} (docs/operations.md, "A local cluster in
 * one process"): outside any source checkout, as Kafka's {@code log.dirs} is, but in the user's
 * data directory rather than {@code /tmp}, which is often a RAM-backed tmpfs (where the llpl heap
 * files would take memory) and cleared at boot: {@code $XDG_DATA_HOME/flexlog/<layout>}, or {@code
 * ~/.local/share/flexlog/<layout>} when XDG_DATA_HOME is unset, empty or relative (the XDG Base
 * Directory rules). Each layout has its own directory, so {@code dev}, {@code dev --tree} and
 * {@code dev --processes} never start on each other's data.
 */
final class DevDataDir {
  private DevDataDir() {}

  /**
   * @param layout {@code dev}, {@code dev-tree} or {@code dev-processes}
   * @param env the environment (XDG_DATA_HOME)
   * @param userHome the {@code user.home} system property
   */
  static Path defaultDir(String layout, Map<String, String> env, String userHome) {
    String xdg = env.get("XDG_DATA_HOME");
    Path base =
        xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute()
            ? Path.of(xdg)
            : Path.of(userHome, ".local", "share");
    return base.resolve("flexlog").resolve(layout);
  }

  /** {@link #defaultDir} of this process's environment. */
  static Path defaultDir(String layout) {
    return defaultDir(layout, System.getenv(), System.getProperty("user.home"));
  }
}
