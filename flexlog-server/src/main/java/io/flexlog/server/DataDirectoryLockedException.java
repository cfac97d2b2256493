package io.flexlog.server;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A data directory is held by another process (or another node of this one): the start was refused
 * before anything in the directory was read or written.
 */
public final class DataDirectoryLockedException extends IOException {
  private final Path dir;
  private final String holder;

  public DataDirectoryLockedException(Path dir, String holder) {
    super(
        "data directory "
            + dir
            + " is in use by "
            + holder
            + "; stop that process or use another data directory");
    this.dir = dir;
    this.holder = holder;
  }

  /** The directory, absolute. */
  public Path dir() {
    return dir;
  }

  /** What the lock file says about its holder ("pid 1234 (dev cluster, since ...)"). */
  public String holder() {
    return holder;
  }
}
