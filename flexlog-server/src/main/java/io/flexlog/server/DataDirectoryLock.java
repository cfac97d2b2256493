package io.flexlog.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The exclusive claim of one process on a data directory (docs/operations.md, "Data directories"):
 * an OS file lock on {@code <dir>/flexlog.lock}, taken before the node reads or writes anything
 * else there and held until {@link #close}. The file names its holder (process id, what runs, since
 * when) so that a second process can say who has the directory.
 *
 * <p>The lock file is never deleted while the directory stays: deleting it on release would let a
 * process that opened the old file and one that created a new one both hold "the" lock. A start
 * that fails calls {@link #closeAfterFailedStart}, which removes the directory again if this lock
 * created it, so a failed start leaves no debris.
 */
public final class DataDirectoryLock implements AutoCloseable {
  /** The lock file's name inside the data directory. */
  public static final String FILE_NAME = "flexlog.lock";

  private final Path dir;
  private final Path createdRoot;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(Path dir, Path createdRoot, FileChannel channel, FileLock lock) {
    this.dir = dir;
    this.createdRoot = createdRoot;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Creates {@code dir} if needed and locks it for this process.
   *
   * @param holder what takes the directory, for the message another process gets ("dev cluster",
   *     "replica node 1")
   * @throws DataDirectoryLockedException when another process, or another node of this process,
   *     holds it; nothing in the directory was changed
   * @throws IOException when the directory or its lock file cannot be created
   */
  public static DataDirectoryLock acquire(Path dir, String holder) throws IOException {
    Path absolute = dir.toAbsolutePath().normalize();
    Path createdRoot = firstMissing(absolute);
    Files.createDirectories(absolute);
    Path file = absolute.resolve(FILE_NAME);
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new DataDirectoryLockedException(absolute, readHolder(file));
    }
    DataDirectoryLock claimed = new DataDirectoryLock(absolute, createdRoot, channel, lock);
    try {
      claimed.writeHolder(holder);
    } catch (IOException | RuntimeException e) {
      claimed.closeAfterFailedStart();
      throw e;
    }
    return claimed;
  }

  private static Path firstMissing(Path dir) {
    Path missing = null;
    for (Path p = dir; p != null && !Files.exists(p); p = p.getParent()) {
      missing = p;
    }
    return missing;
  }

  private void writeHolder(String holder) throws IOException {
    String text =
        "pid "
            + ProcessHandle.current().pid()
            + " ("
            + holder
            + ", since "
            + Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            + ")\n";
    channel.truncate(0);
    channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), 0);
    channel.force(true);
  }

  private static String readHolder(Path file) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? "another process" : text;
    } catch (IOException e) {
      return "another process";
    }
  }

  /** The locked directory, absolute. */
  public Path dir() {
    return dir;
  }

  /** Releases the lock; the directory and its lock file stay. */
  @Override
  public void close() {
    if (!channel.isOpen()) {
      return;
    }
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release the lock on " + dir, e);
    }
  }

  /**
   * Releases the lock after a start that failed: when {@link #acquire} created the directory (or
   * one of its parents), that whole tree is deleted first, so nothing is left behind; a directory
   * that existed before keeps what it held.
   */
  public void closeAfterFailedStart() {
    try {
      if (createdRoot != null) {
        deleteTree(createdRoot);
      }
    } finally {
      close();
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + root + " after a failed start", e);
    }
  }
}
