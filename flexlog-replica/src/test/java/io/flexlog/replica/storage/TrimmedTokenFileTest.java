package io.flexlog.replica.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The trimmed-token file (docs/architecture.md#retention, "Trimmed tokens"): what was synced comes
 * back in order; a write cut short by a crash, a damaged record, another node's file or a failed
 * rewrite never yields a wrong token, loading never writes, and the next sync repairs the tail. A
 * rewrite runs in the background and keeps what was added meanwhile.
 */
class TrimmedTokenFileTest {
  private static final int NODE = 4;

  @TempDir Path dir;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final List<TrimmedTokenFile> opened = new ArrayList<>();

  @BeforeEach
  void captureLog() {
    log.start();
    ((Logger) LoggerFactory.getLogger(TrimmedTokenFile.class)).addAppender(log);
  }

  @AfterEach
  void release() {
    opened.forEach(TrimmedTokenFile::close);
    ((Logger) LoggerFactory.getLogger(TrimmedTokenFile.class)).detachAppender(log);
  }

  private Path path() {
    return dir.resolve(TrimmedTokenFile.FILE_NAME);
  }

  private TrimmedTokenFile open(int nodeId, DurabilityMode mode, DurableFiles.FileOps ops) {
    TrimmedTokenFile file = new TrimmedTokenFile(dir, nodeId, mode, ops);
    opened.add(file);
    return file;
  }

  /** A fresh instance of the node's file, loaded: the tokens it replayed, as (session, seq, sn). */
  private List<List<Long>> load(TrimmedTokenFile file) {
    List<List<Long>> tokens = new ArrayList<>();
    file.load((session, sequence, sn) -> tokens.add(List.of(session, sequence, sn)));
    return tokens;
  }

  private List<List<Long>> reload() {
    return load(open(NODE, DurabilityMode.PROCESS, DurableFiles.REAL));
  }

  private TrimmedTokenFile written(int tokens) {
    TrimmedTokenFile file = open(NODE, DurabilityMode.PROCESS, DurableFiles.REAL);
    load(file);
    for (int i = 1; i <= tokens; i++) {
      file.add(100 + i, i, 1000L * i);
    }
    file.sync();
    return file;
  }

  private static List<Long> token(long i) {
    return List.of(100 + i, i, 1000L * i);
  }

  private boolean warned(String text) {
    return log.list.stream().anyMatch(e -> e.getFormattedMessage().contains(text));
  }

  @Test
  void shouldReplayWhatWasSyncedInOrderAndNothingThatWasNot() {
    TrimmedTokenFile file = written(3);
    file.add(999, 9, 9); // never synced: a crash loses it, as it loses the trim it belonged to
    file.close();

    assertThat(reload()).containsExactly(token(1), token(2), token(3));
    assertThat(opened.get(1).count()).isEqualTo(3);
  }

  @Test
  void shouldWriteATrimOfMoreTokensThanItsBufferHoldsInPieces() {
    TrimmedTokenFile file = written(5000);
    assertThat(file.count()).isEqualTo(5000);
    file.close();

    List<List<Long>> tokens = reload();
    assertThat(tokens).hasSize(5000);
    assertThat(tokens.get(4999)).isEqualTo(token(5000));
  }

  @Test
  void shouldHoldNothingAndWriteNothingWhenThereIsNoFile() {
    TrimmedTokenFile file = open(NODE, DurabilityMode.PROCESS, DurableFiles.REAL);
    assertThat(load(file)).isEmpty();
    file.sync();
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> true)).isFalse();
    assertThat(path()).doesNotExist();
  }

  @Test
  void shouldStopBeforeATornLastRecordAndOverwriteIt() throws IOException {
    written(3).close();
    long size = Files.size(path());
    try (FileChannel ch = FileChannel.open(path(), StandardOpenOption.WRITE)) {
      ch.truncate(size - 10); // the crash cut the third record short
    }
    byte[] before = Files.readAllBytes(path());

    TrimmedTokenFile file = open(NODE, DurabilityMode.PROCESS, DurableFiles.REAL);
    assertThat(load(file)).containsExactly(token(1), token(2));
    assertThat(Files.readAllBytes(path())).as("loading never writes").isEqualTo(before);
    assertThat(warned("not an intact token")).isTrue();

    file.add(104, 4, 4000);
    file.sync();
    file.close();
    assertThat(reload()).containsExactly(token(1), token(2), token(4));
    assertThat(Files.size(path()))
        .isEqualTo(TrimmedTokenFile.HEADER_BYTES + 3 * TrimmedTokenFile.RECORD_BYTES);
  }

  @Test
  void shouldStopAtARecordThatFailsItsChecksum() throws IOException {
    written(3).close();
    flipByte(TrimmedTokenFile.HEADER_BYTES + TrimmedTokenFile.RECORD_BYTES + 17); // record 2's SN

    assertThat(reload()).as("never a wrong SN").containsExactly(token(1));
    assertThat(warned("not an intact token")).isTrue();
  }

  @Test
  void shouldIgnoreAnotherNodesFileAndReplaceItAtTheFirstSync() throws IOException {
    TrimmedTokenFile other = open(NODE + 1, DurabilityMode.PROCESS, DurableFiles.REAL);
    load(other);
    other.add(1, 1, 1);
    other.sync();
    other.close();
    byte[] before = Files.readAllBytes(path());

    TrimmedTokenFile file = open(NODE, DurabilityMode.PROCESS, DurableFiles.REAL);
    assertThat(load(file)).isEmpty();
    assertThat(warned("belongs to replica node " + (NODE + 1))).isTrue();
    assertThat(Files.readAllBytes(path())).isEqualTo(before);

    file.add(101, 1, 1000);
    file.sync();
    file.close();
    assertThat(reload()).containsExactly(token(1));
  }

  @Test
  void shouldIgnoreAFileWithABadMagicOrTooShortForItsHeader() throws IOException {
    Files.write(path(), new byte[] {1, 2, 3});
    assertThat(reload()).isEmpty();
    assertThat(warned("too short for its header")).isTrue();

    Files.write(path(), new byte[64]);
    assertThat(reload()).isEmpty();
    assertThat(warned("bad magic")).isTrue();
  }

  /** A file rewritten once it holds more than {@code min} tokens, with {@code tokens} synced. */
  private TrimmedTokenFile compactable(DurableFiles.FileOps ops, long min, int tokens) {
    TrimmedTokenFile file = new TrimmedTokenFile(dir, NODE, DurabilityMode.PROCESS, ops, min);
    opened.add(file);
    load(file);
    for (int i = 1; i <= tokens; i++) {
      file.add(100 + i, i, 1000L * i);
    }
    file.sync();
    return file;
  }

  @Test
  void shouldRewriteInTheBackgroundKeepingTheAcceptedTokensAndThoseAddedMeanwhile()
      throws Exception {
    TrimmedTokenFile file = compactable(DurableFiles.REAL, 4, 6);
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> sequence % 2 == 0)).isTrue();
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> true))
        .as("one rewrite at a time")
        .isFalse();
    file.add(107, 7, 7000); // while the rewrite may still run
    file.sync();
    file.awaitCompaction();
    file.add(108, 8, 8000);
    file.sync();

    assertThat(file.compactions()).isEqualTo(1);
    assertThat(file.count()).isEqualTo(5);
    file.close();
    assertThat(reload()).containsExactly(token(2), token(4), token(6), token(7), token(8));
  }

  @Test
  void shouldNotRewriteUntilItHoldsTwiceWhatTheLastRewriteKeptAndTheFilterCanKeep()
      throws Exception {
    TrimmedTokenFile file = compactable(DurableFiles.REAL, 4, 4);
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> true)).isFalse();
    file.add(105, 5, 5000);
    file.sync();
    assertThat(file.compactIfGrown(3, () -> (session, sequence, sn) -> true))
        .as("the filter may keep 3: not before 6 tokens")
        .isFalse();
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> true)).isTrue();
    file.awaitCompaction();
    file.sync();
    assertThat(file.count()).isEqualTo(5);
    for (int i = 6; i <= 10; i++) {
      file.add(100 + i, i, 1000L * i);
    }
    file.sync();
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> true))
        .as("10 tokens, twice the 5 kept")
        .isFalse();
  }

  @Test
  void shouldKeepTheOldTokensWhenARewriteFailsBeforeItsRename() throws Exception {
    TrimmedTokenFile file = compactable(new FailingRename(), 1, 2);
    assertThat(file.compactIfGrown(0, () -> (session, sequence, sn) -> false)).isTrue();
    file.awaitCompaction();
    file.add(103, 3, 3000);
    file.sync(); // the rename fails: logged, the old file stays and takes the new token

    assertThat(file.compactions()).isZero();
    assertThat(warned("it stays as it was")).isTrue();
    file.close();
    assertThat(reload()).containsExactly(token(1), token(2), token(3));
  }

  @Test
  void shouldNeverReadALeftoverRewriteFile() throws IOException {
    written(2).close();
    Files.write(
        dir.resolve(TrimmedTokenFile.FILE_NAME + TrimmedTokenFile.COMPACT_SUFFIX), new byte[100]);
    assertThat(reload()).containsExactly(token(1), token(2));
  }

  @Test
  void shouldForceEachSyncInFsyncModeOnlyAndReportAFailedWrite() {
    CountingForce counting = new CountingForce();
    TrimmedTokenFile process = open(NODE, DurabilityMode.PROCESS, counting);
    load(process);
    process.add(1, 1, 1);
    process.sync();
    assertThat(counting.forces).isZero();
    process.close();

    TrimmedTokenFile fsync = open(NODE, DurabilityMode.FSYNC, counting);
    load(fsync);
    fsync.add(2, 2, 2);
    fsync.sync();
    assertThat(counting.forces).isPositive();

    counting.fail = true;
    fsync.add(3, 3, 3);
    assertThatThrownBy(fsync::sync)
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("cannot write trimmed tokens to");
  }

  private void flipByte(long at) throws IOException {
    try (FileChannel ch =
        FileChannel.open(path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
      ch.write(one, at);
    }
  }

  private static class CountingForce implements DurableFiles.FileOps {
    int forces;
    boolean fail;

    @Override
    public void force(FileChannel channel) throws IOException {
      if (fail) {
        throw new IOException("fabricated");
      }
      forces++;
      channel.force(true);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
      DurableFiles.REAL.rename(from, to);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
      DurableFiles.REAL.syncDirectory(dir);
    }
  }

  /** A crash between writing the compacted temp file and renaming it over the old one. */
  private static final class FailingRename extends CountingForce {
    @Override
    public void rename(Path from, Path to) throws IOException {
      throw new IOException("fabricated crash before the rename");
    }
  }
}
