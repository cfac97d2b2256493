package io.flexlog.sequencer;

import io.flexlog.core.util.DurableFiles;
import io.flexlog.sequencer.ordering.NodeEpochs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The durable epoch of a sequencer node, kept in the text file {@code dataDir/epoch} (one unsigned
 * decimal number and a newline).
 *
 * <p>Durability: {@link #open} and {@link #advance} write the new value to {@code epoch.tmp}, fsync
 * it, atomically rename it over {@code epoch} and fsync the directory, and only then return the new
 * epoch ({@link DurableFiles}). Hence an epoch is durable before any SN carrying it is issued, and
 * a crash at any point leaves either the old or the new value, never a torn one; every epoch handed
 * out is larger than every epoch handed out by an earlier instance on the same directory.
 *
 * <p>Epochs stay in {@code [1, Integer.MAX_VALUE]} so that SNs ({@code epoch << 32 | counter})
 * remain positive and compare correctly as signed {@code long}s.
 *
 * <p>Threading: {@link #advance} is called by one thread at a time (the node's event loop after
 * start); {@link #current} may be read from any thread.
 */
public final class EpochStore implements NodeEpochs {
  static final String FILE_NAME = "epoch";

  private final Path file;
  private volatile int current;

  private EpochStore(Path dir, int current) {
    this.file = dir.resolve(FILE_NAME);
    this.current = current;
  }

  /**
   * Reads the stored epoch (0 when the file does not exist yet), durably stores the next one and
   * returns the store positioned at it.
   *
   * @throws IOException when the directory cannot be created or written, or naming the file and its
   *     content when it is corrupt (it is never silently reset)
   */
  public static EpochStore open(Path dataDir) throws IOException {
    Files.createDirectories(dataDir);
    EpochStore store = new EpochStore(dataDir, read(dataDir.resolve(FILE_NAME)));
    store.write(next(store.current, store.file));
    return store;
  }

  /** The latest durable epoch. */
  @Override
  public int current() {
    return current;
  }

  /**
   * Durably moves to the next epoch and returns it. Blocks for the fsyncs.
   *
   * @throws UncheckedIOException when the new epoch could not be made durable; the current epoch is
   *     then unchanged
   */
  @Override
  public int advance() {
    try {
      write(next(current, file));
      return current;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot persist the next epoch in " + file, e);
    }
  }

  private static int next(int epoch, Path file) throws IOException {
    if (epoch == Integer.MAX_VALUE) {
      throw new IOException("epoch space exhausted in " + file);
    }
    return epoch + 1;
  }

  private static int read(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new IOException("cannot read epoch file " + file + ": " + e.getMessage(), e);
    }
    String trimmed = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    try {
      if (!trimmed.isEmpty() && trimmed.chars().allMatch(Character::isDigit)) {
        long value = Long.parseLong(trimmed);
        if (value >= 1 && value <= Integer.MAX_VALUE) {
          return (int) value;
        }
      }
    } catch (NumberFormatException e) {
      // Too many digits for a long: reported as corrupt below.
    }
    throw new IOException(
        "corrupt epoch file "
            + file
            + ": expected a decimal epoch in [1, "
            + Integer.MAX_VALUE
            + "], found "
            + describe(text)
            + "; refusing to start because reusing an epoch could issue an SN twice");
  }

  private static String describe(String text) {
    String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
    return "'" + shown.replace("\n", "\\n") + "' (" + text.length() + " chars)";
  }

  private void write(int epoch) throws IOException {
    DurableFiles.writeAtomically(file, (epoch + "\n").getBytes(StandardCharsets.US_ASCII));
    current = epoch;
  }
}
