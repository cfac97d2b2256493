package io.flexlog.replica.storage;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.flexlog.core.model.Sn;
import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The sync-point file (docs/architecture.md#sync-phase, "Durable sync points"): what it saves comes
 * back, and whatever cannot be trusted (torn, corrupt, foreign, or written in durability process
 * before the machine restarted) loads as no sync point, with a warning, never as a wrong one.
 */
class SyncPointFileTest {
  private static final int NODE = 3;
  private static final String BOOT = "boot-a";

  @TempDir Path dir;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();

  @BeforeEach
  void captureLog() {
    log.start();
    ((Logger) LoggerFactory.getLogger(SyncPointFile.class)).addAppender(log);
  }

  @AfterEach
  void releaseLog() {
    ((Logger) LoggerFactory.getLogger(SyncPointFile.class)).detachAppender(log);
  }

  private static SyncPointTable table() {
    return new SyncPointTable(
        NODE,
        List.of(
            new SyncPointTable.Entry(
                0, 1, Sn.of(2, 500), Sn.of(1, 7), 480, Sn.of(2, 499), new long[] {4, Sn.of(2, 9)}),
            new SyncPointTable.Entry(0, 0, Sn.of(1, 0), 0, 0, 0, new long[0])));
  }

  private SyncPointFile file(DurabilityMode mode, String bootId) {
    return new SyncPointFile(dir, NODE, mode, () -> bootId, DurableFiles.REAL);
  }

  private void save(SyncPointTable table, DurabilityMode mode, String bootId) {
    try (SyncPointFile file = file(mode, bootId)) {
      file.save(table);
    }
  }

  private SyncPointTable load(DurabilityMode mode, String bootId) {
    try (SyncPointFile file = file(mode, bootId)) {
      return file.load();
    }
  }

  private List<String> warnings() {
    return log.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private static void assertSameTable(SyncPointTable actual, SyncPointTable expected) {
    assertThat(actual.nodeId()).isEqualTo(expected.nodeId());
    assertThat(actual.entries()).hasSameSizeAs(expected.entries());
    for (int i = 0; i < expected.entries().size(); i++) {
      SyncPointTable.Entry a = actual.entries().get(i);
      SyncPointTable.Entry e = expected.entries().get(i);
      assertThat(List.of(a.shardId(), a.colorId())).isEqualTo(List.of(e.shardId(), e.colorId()));
      assertThat(List.of(a.syncPoint(), a.trimPoint(), a.heldCount(), a.lastHeldSn()))
          .isEqualTo(List.of(e.syncPoint(), e.trimPoint(), e.heldCount(), e.lastHeldSn()));
      assertThat(a.marks()).containsExactly(e.marks());
    }
  }

  @Test
  void shouldLoadWhatItSaved() {
    save(table(), DurabilityMode.PROCESS, BOOT);

    assertSameTable(load(DurabilityMode.PROCESS, BOOT), table());
    assertThat(warnings()).isEmpty();
  }

  @Test
  void shouldLoadNothingWithoutAFile() {
    assertThat(load(DurabilityMode.PROCESS, BOOT).isEmpty()).isTrue();
    assertThat(warnings()).isEmpty();
  }

  @Test
  void shouldFallBackWithAWarningOnATornFileAndLeaveItAsItIs() throws IOException {
    save(table(), DurabilityMode.FSYNC, BOOT);
    Path path = dir.resolve(SyncPointFile.FILE_NAME);
    byte[] whole = Files.readAllBytes(path);
    for (int length : new int[] {0, 7, 20, whole.length / 2, whole.length - 1}) {
      byte[] torn = Arrays.copyOf(whole, length);
      Files.write(path, torn);
      log.list.clear();

      assertThat(load(DurabilityMode.FSYNC, BOOT).isEmpty()).as("torn at %d", length).isTrue();
      assertThat(warnings())
          .as("torn at %d", length)
          .singleElement()
          .asString()
          .contains("ignoring");
      assertThat(Files.readAllBytes(path)).as("loading never writes").isEqualTo(torn);
    }
  }

  @Test
  void shouldFallBackWithAWarningOnEveryFlippedBit() throws IOException {
    save(table(), DurabilityMode.FSYNC, BOOT);
    Path path = dir.resolve(SyncPointFile.FILE_NAME);
    byte[] whole = Files.readAllBytes(path);
    for (int at = 0; at < whole.length; at++) {
      byte[] corrupt = whole.clone();
      corrupt[at] ^= (byte) (1 << (at % 8));
      Files.write(path, corrupt);
      log.list.clear();

      assertThat(load(DurabilityMode.FSYNC, BOOT).isEmpty()).as("bit flipped at %d", at).isTrue();
      assertThat(warnings()).as("bit flipped at %d", at).hasSize(1);
    }
  }

  @Test
  void shouldIgnoreAnotherNodesFile() {
    try (SyncPointFile other = new SyncPointFile(dir, NODE + 1, DurabilityMode.FSYNC)) {
      other.save(new SyncPointTable(NODE + 1, table().entries()));
    }

    assertThat(load(DurabilityMode.FSYNC, BOOT).isEmpty()).isTrue();
    assertThat(warnings()).singleElement().asString().contains("belongs to replica node 4");
  }

  @Test
  void shouldDropThePointsButKeepTheMarksOfAProcessDurabilityFileFromAnEarlierBoot() {
    save(table(), DurabilityMode.PROCESS, BOOT);

    SyncPointTable loaded = load(DurabilityMode.PROCESS, "boot-b");

    assertThat(loaded.entries()).allMatch(e -> e.syncPoint() == 0 && e.heldCount() == 0);
    assertThat(loaded.entries().get(0).marks()).containsExactly(4, Sn.of(2, 9));
    assertThat(warnings()).singleElement().asString().contains("before the machine restarted");
    assertThat(load(DurabilityMode.PROCESS, "").entries())
        .as("no boot id to compare with")
        .allMatch(e -> e.syncPoint() == 0);
  }

  @Test
  void shouldKeepThePointsOfAnFsyncFileAcrossAMachineRestart() {
    save(table(), DurabilityMode.FSYNC, BOOT);

    assertSameTable(load(DurabilityMode.PROCESS, "boot-b"), table());
  }

  @Test
  void shouldKeepThePreviousTableWhenAWriteCrashesBeforeItsRename() {
    save(table(), DurabilityMode.FSYNC, BOOT);
    DurableFiles.FileOps crashBeforeRename =
        new DurableFiles.FileOps() {
          @Override
          public void force(FileChannel channel) throws IOException {
            channel.force(true);
          }

          @Override
          public void rename(Path from, Path to) throws IOException {
            throw new IOException("crash before the rename");
          }

          @Override
          public void syncDirectory(Path d) {}
        };
    try (SyncPointFile file =
        new SyncPointFile(dir, NODE, DurabilityMode.FSYNC, () -> BOOT, crashBeforeRename)) {
      file.save(SyncPointTable.empty(NODE));
    }

    assertSameTable(load(DurabilityMode.FSYNC, BOOT), table());
  }
}
