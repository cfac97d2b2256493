package io.flexlog.replica.storage.segment;

import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TrimPoints;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSD tier of one replica node: its segment files ({@link SegmentDescriptor}) in one directory,
 * ordered by the chunk sequences they cover, and reads by address.
 *
 * <p><b>Which tier is authoritative after a crash.</b> Tiering writes and fsyncs a segment before
 * the PM chunks it copies are freed, so at start-up both may hold the same chunk. The rule, per
 * chunk sequence:
 *
 * <ol>
 *   <li>a <em>complete</em> segment (header, every entry CRC and the footer verify) covering it is
 *       authoritative: the PM copy is freed without being replayed;
 *   <li>otherwise PM, if it still holds the chunk: an incomplete segment's entries of that chunk
 *       are ignored, and a segment left with no other entries is deleted (a crash mid-tiering);
 *   <li>otherwise the valid prefix of a damaged segment, up to its first bad entry, is all there is
 *       (this only happens through media damage after the PM copy was freed).
 * </ol>
 *
 * A file whose header cannot be read is deleted when PM holds the chunk its name starts with, and
 * set aside as {@code .damaged} otherwise. So a crash at any point of tiering neither loses nor
 * duplicates an entry.
 *
 * <p>Threading: owned by the storage's owner thread; segments arrive from the tiering thread
 * through {@link #add}.
 */
public final class SegmentStore {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentStore.class);
  public static final String DAMAGED_SUFFIX = ".damaged";

  private final Path dir;
  private final List<Segment> segments = new ArrayList<>();
  private final CRC32C crc = new CRC32C();
  private long bytes;

  /**
   * @throws StorageException when the directory cannot be created
   */
  public SegmentStore(Path dir) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StorageException(
          "cannot create segment directory " + dir + ": " + e.getMessage(), e);
    }
  }

  public Path dir() {
    return dir;
  }

  /** Bytes of all segment files. */
  public long bytes() {
    return bytes;
  }

  public int count() {
    return segments.size();
  }

  /** Entries in all segment files, trimmed ones of segments not yet removed included. */
  public long entries() {
    long total = 0;
    for (Segment segment : segments) {
      total += segment.entryCount();
    }
    return total;
  }

  /** The segments, oldest first (a copy). */
  public List<Segment> segments() {
    return new ArrayList<>(segments);
  }

  /**
   * Opens the segment files found in the directory and applies the authority rule (see the class
   * comment), deleting files that PM makes redundant.
   *
   * @param pmHoldsChunk whether PM still holds the chunk with this sequence
   */
  public void recover(LongPredicate pmHoldsChunk) {
    for (Path file : segmentFiles()) {
      Segment segment = Segment.recover(file);
      if (segment == null) {
        long first = SegmentDescriptor.firstSequenceFromName(file.getFileName().toString());
        if (first > 0 && pmHoldsChunk.test(first)) {
          LOG.info("removing {}: torn by an interrupted tiering, PM holds its entries", file);
          delete(file);
        } else {
          LOG.error("segment {} has no readable header: set aside as {}", file, DAMAGED_SUFFIX);
          setAside(file);
        }
        continue;
      }
      if (!segment.isComplete()) {
        long[] own = new long[1];
        segment.forEachEntry(
            (address, shard, color, session, sequence, sn, length) -> own[0]++,
            pmHoldsChunk,
            TrimPoints.NONE);
        if (own[0] == 0) {
          LOG.info(
              "removing {}: {} after an interrupted tiering, PM holds its entries",
              file,
              segment.problem());
          segment.release();
          delete(file);
          continue;
        }
        LOG.error(
            "segment {} is damaged ({}): keeping the {} readable entries before the damage",
            file,
            segment.problem(),
            own[0]);
      }
      add(segment);
    }
  }

  /**
   * Reports every readable entry of every segment, oldest first, except entries at or below their
   * color's trim point and, for incomplete segments, entries of chunks PM holds.
   */
  public void replay(
      LogStorage.EntryVisitor visitor, LongPredicate pmHoldsChunk, TrimPoints trims) {
    for (Segment segment : segments) {
      segment.forEachEntry(visitor, segment.isComplete() ? s -> false : pmHoldsChunk, trims);
    }
  }

  /** True when a complete segment covers the chunk sequence: PM's copy of it is redundant. */
  public boolean coversAuthoritatively(long chunkSequence) {
    Segment segment = segmentFor(chunkSequence);
    return segment != null && segment.isComplete();
  }

  /** The highest chunk sequence any segment covers, 0 if none. */
  public long maxSequence() {
    long max = 0;
    for (Segment segment : segments) {
      max = Math.max(max, segment.lastSequence());
    }
    return max;
  }

  /** Adds a segment; its chunk range must not overlap a present one. */
  public void add(Segment segment) {
    int at = insertionPoint(segment.firstSequence());
    if (at > 0 && segments.get(at - 1).lastSequence() >= segment.firstSequence()
        || at < segments.size() && segments.get(at).firstSequence() <= segment.lastSequence()) {
      throw new IllegalStateException(
          "segment " + segment.file() + " overlaps the chunk range of another segment");
    }
    segments.add(at, segment);
    bytes += segment.fileBytes();
  }

  /** The payload length of the entry at {@code address}, or -1 when no segment holds it. */
  public int payloadLength(long address) {
    Segment segment = segmentFor(address >>> 32);
    if (segment == null) {
      return -1;
    }
    int offset = segment.offsetOf(address);
    return offset < 0 ? -1 : segment.payloadLength(offset);
  }

  /** Returned by the token accessors when no segment holds the address. */
  public static final long NO_ENTRY = Long.MIN_VALUE;

  /** The token session of the entry at {@code address}, or {@link #NO_ENTRY}. */
  public long tokenSession(long address) {
    Segment segment = segmentFor(address >>> 32);
    int offset = segment == null ? -1 : segment.offsetOf(address);
    return offset < 0 ? NO_ENTRY : segment.tokenSession(offset);
  }

  /** The token sequence of the entry at {@code address}, or {@link #NO_ENTRY}. */
  public long tokenSequence(long address) {
    Segment segment = segmentFor(address >>> 32);
    int offset = segment == null ? -1 : segment.offsetOf(address);
    return offset < 0 ? NO_ENTRY : segment.tokenSequence(offset);
  }

  /**
   * A read-only view of the payload, CRC-checked, or null when no segment holds the address. A
   * retained view stays readable after the segment is deleted: it keeps the file mapped until it is
   * released.
   *
   * @throws StorageException when the entry fails its CRC
   */
  public ByteBuf payload(long address) {
    Segment segment = segmentFor(address >>> 32);
    if (segment == null) {
      return null;
    }
    int offset = segment.offsetOf(address);
    return offset < 0 ? null : segment.verifiedPayload(offset, crc);
  }

  /**
   * Removes every segment whose entries are all at or below their colors' trim points.
   *
   * @return their files, for the caller to delete (off the owner thread)
   */
  public List<Path> removeTrimmed(TrimPoints trims) {
    List<Path> dead = new ArrayList<>();
    for (int i = segments.size() - 1; i >= 0; i--) {
      Segment segment = segments.get(i);
      if (segment.allTrimmed(trims)) {
        segments.remove(i);
        bytes -= segment.fileBytes();
        dead.add(segment.file());
        segment.release();
      }
    }
    return dead;
  }

  /**
   * Releases every segment's mapping (unmapped now, or when the last retained view is released);
   * the store is not used afterwards.
   */
  public void close() {
    for (Segment segment : segments) {
      segment.release();
    }
    segments.clear();
    bytes = 0;
  }

  /** Deletes a segment file; a failure is logged (recovery deletes it again). */
  public static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("cannot delete segment {}: {}", file, e.toString());
    }
  }

  private Segment segmentFor(long chunkSequence) {
    int at = insertionPoint(chunkSequence + 1) - 1; // last segment starting at or before it
    if (at < 0) {
      return null;
    }
    Segment segment = segments.get(at);
    return segment.coversSequence(chunkSequence) ? segment : null;
  }

  /** Index of the first segment whose first sequence is >= {@code firstSequence}. */
  private int insertionPoint(long firstSequence) {
    int low = 0;
    int high = segments.size();
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (segments.get(mid).firstSequence() < firstSequence) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  private List<Path> segmentFiles() {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream =
        Files.newDirectoryStream(
            dir, SegmentDescriptor.FILE_PREFIX + "*" + SegmentDescriptor.FILE_SUFFIX)) {
      stream.forEach(files::add);
    } catch (IOException e) {
      throw new StorageException("cannot list segments in " + dir + ": " + e.getMessage(), e);
    }
    files.sort(null); // fixed-width hex names: name order is sequence order
    return files;
  }

  private static void setAside(Path file) {
    try {
      Files.move(
          file,
          file.resolveSibling(file.getFileName() + DAMAGED_SUFFIX),
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new StorageException("cannot set aside damaged segment " + file + ": " + e, e);
    }
  }
}
