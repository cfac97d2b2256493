package io.flexlog.core.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small file so that a crash at any point leaves either its old or its new content,
 * never a torn one: write {@code <name>.tmp} in the same directory, fsync it, atomically rename it
 * over {@code <name>}, fsync the directory. A leftover temp file from a crash is overwritten by the
 * next write and never read.
 *
 * <p>The three file-system steps go through {@link FileOps} so that tests can fabricate a crash
 * between them.
 */
public final class DurableFiles {
  /** Suffix of the temp file written next to the target. */
  public static final String TEMP_SUFFIX = ".tmp";

  /** The file-system steps of a durable write. */
  public interface FileOps {
    /** Forces the temp file's content to stable storage. */
    void force(FileChannel channel) throws IOException;

    /** Atomically replaces {@code to} with {@code from}. */
    void rename(Path from, Path to) throws IOException;

    /** Makes the rename durable by forcing the directory entry. */
    void syncDirectory(Path dir) throws IOException;
  }

  /** The real steps: {@code force(true)}, {@code ATOMIC_MOVE}, fsync of the directory. */
  public static final FileOps REAL =
      new FileOps() {
        @Override
        public void force(FileChannel channel) throws IOException {
          channel.force(true);
        }

        @Override
        public void rename(Path from, Path to) throws IOException {
          try {
            Files.move(
                from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          } catch (AtomicMoveNotSupportedException e) {
            throw new IOException(
                "file system of " + to.getParent() + " cannot rename atomically", e);
          }
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
          DurableFiles.syncDirectory(dir);
        }
      };

  private DurableFiles() {}

  /**
   * Forces {@code dir}'s entries (files created, renamed or removed in it) to stable storage: a
   * rename or a new file is only durable once its directory entry is. Linux fsyncs a directory fd.
   */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** The temp file a write of {@code file} goes through. */
  public static Path tempFile(Path file) {
    return file.resolveSibling(file.getFileName() + TEMP_SUFFIX);
  }

  /**
   * Durably replaces {@code file} with {@code bytes}; the directory must exist. When this returns,
   * a crash at any later point reads {@code bytes}.
   *
   * @throws IOException when a step fails; {@code file} then holds its old content (or does not
   *     exist if it did not before)
   */
  public static void writeAtomically(Path file, byte[] bytes) throws IOException {
    writeAtomically(file, bytes, REAL);
  }

  /** {@link #writeAtomically(Path, byte[])} through the given file-system steps. */
  public static void writeAtomically(Path file, byte[] bytes, FileOps ops) throws IOException {
    Path temp = tempFile(file);
    try (FileChannel ch =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ops.force(ch);
    }
    ops.rename(temp, file);
    Path dir = file.getParent();
    ops.syncDirectory(dir != null ? dir : file.toAbsolutePath().getParent());
  }
}
