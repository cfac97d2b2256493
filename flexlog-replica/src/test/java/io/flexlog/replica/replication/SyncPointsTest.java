package io.flexlog.replica.replication;

import static io.flexlog.replica.replication.PeeredReplica.GLOBAL;
import static io.flexlog.replica.replication.PeeredReplica.SHARD;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.util.DurableFiles;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.SyncPointFile;
import io.flexlog.replica.storage.SyncPointTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Durable sync points and join marks (docs/architecture.md#sync-phase, "Durable sync points"), on
 * the two replicas of one shard driven frame by frame: a replica restarted on its log and its
 * sync-point file is blind only above its sync point, so its first sync phase asks its peer only
 * for what it missed; a torn file or one that does not match the log falls back to the blind range
 * from epoch 1, never to a wrong claim; join marks survive the restart.
 */
class SyncPointsTest {
  private static final long E1 = Sn.of(1, 0);
  private static final int RECORDS = 1000;
  private static final int MISSED = 10;
  private static final byte[] PAYLOAD = new byte[100];

  @TempDir Path dir;
  private final ListAppender<ILoggingEvent> warnings = new ListAppender<>();
  private PeeredReplica one;
  private PeeredReplica two;

  @BeforeEach
  void start() {
    warnings.start();
    for (Class<?> c : List.of(SyncPoints.class, SyncPointFile.class)) {
      ((Logger) LoggerFactory.getLogger(c)).addAppender(warnings);
    }
    one = new PeeredReplica(dir, 1);
    two = new PeeredReplica(dir, 2);
    for (PeeredReplica replica : List.of(one, two)) {
      replica.welcomedBy(1);
      replica.watermark(E1);
      replica.commit(1, 1, RECORDS, E1, PAYLOAD);
      replica.watermark(E1 + RECORDS);
    }
  }

  @AfterEach
  void stop() {
    for (Class<?> c : List.of(SyncPoints.class, SyncPointFile.class)) {
      ((Logger) LoggerFactory.getLogger(c)).detachAppender(warnings);
    }
    one.close();
    two.close();
  }

  private List<String> warned() {
    return warnings.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /**
   * Replica one dies; replica two commits {@link #MISSED} more records; replica one restarts on the
   * same sequencer and synchronises with two.
   */
  private void crashMissAndRestart(Runnable whileDown) {
    one.crash();
    two.commit(2, 1, MISSED, E1 + RECORDS, PAYLOAD);
    two.watermark(E1 + RECORDS + MISSED);
    whileDown.run();
    one.start();
    one.welcomedBy(1);
    one.watermark(E1 + RECORDS + MISSED);
  }

  private void assertSynchronised() {
    one.syncWith(two);
    assertThat(one.counter("flexlog.replica.sync.ranges.closed")).isEqualTo(1);
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + RECORDS + MISSED);
    for (long sn : new long[] {E1 + 1, E1 + RECORDS, E1 + RECORDS + 1, E1 + RECORDS + MISSED}) {
      assertThat(one.read(sn))
          .as("read of %s", Sn.describe(sn))
          .isEqualTo(ReadResponseDescriptor.FOUND);
    }
  }

  @Test
  void shouldAskThePeersOnlyForWhatItMissedSinceItsSyncPoint() {
    one.advance(SyncPoints.INTERVAL_MS);

    crashMissAndRestart(() -> {});

    assertThat(one.fetchesFrom()).containsExactly(E1 + RECORDS);
    assertSynchronised();
    assertThat(one.counter("flexlog.replica.sync.fetched")).isEqualTo(MISSED);
    assertThat(one.counter("flexlog.replica.sync.fetched.bytes"))
        .isEqualTo(MISSED * PAYLOAD.length);
    assertThat(warned()).isEmpty();
  }

  @Test
  void shouldAskForEverythingFromEpochOneWithoutASyncPointFile() {
    one.advance(SyncPoints.INTERVAL_MS);

    crashMissAndRestart(() -> delete(one.points.path()));

    assertThat(one.fetchesFrom()).containsExactly(E1);
    assertSynchronised();
    assertThat(one.counter("flexlog.replica.sync.fetched")).isEqualTo(RECORDS + MISSED);
  }

  @Test
  void shouldFallBackToEpochOneWithAWarningOnATornSyncPointFile() throws IOException {
    one.advance(SyncPoints.INTERVAL_MS);
    Path file = one.points.path();
    byte[][] torn = new byte[1][]; // the file once the writer has finished

    crashMissAndRestart(
        () -> {
          try {
            byte[] whole = Files.readAllBytes(file);
            torn[0] = java.util.Arrays.copyOf(whole, whole.length - 3);
            Files.write(file, torn[0]);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });

    assertThat(warned()).singleElement().asString().contains("is damaged");
    assertThat(Files.readAllBytes(file)).as("the start changed nothing on disk").isEqualTo(torn[0]);
    assertThat(one.fetchesFrom()).containsExactly(E1);
    assertSynchronised();
    assertThat(one.counter("flexlog.replica.sync.fetched")).isEqualTo(RECORDS + MISSED);

    one.advance(
        SyncPoints
            .INTERVAL_MS); // the next save replaces the torn file with the replica's new state
    one.crash();
    one.start();
    one.welcomedBy(1);
    one.watermark(E1 + RECORDS + MISSED + 5);
    assertThat(one.fetchesFrom()).containsExactly(E1 + RECORDS + MISSED);
  }

  @Test
  void shouldIgnoreSyncPointsThatTheRecoveredLogDoesNotMatch() {
    one.advance(SyncPoints.INTERVAL_MS);

    crashMissAndRestart(
        () -> {
          // The log is lost (a new disk), the sync-point file survives.
          try (Stream<Path> files = Files.list(one.data)) {
            files.filter(p -> !p.equals(one.points.path())).forEach(SyncPointsTest::delete);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });

    assertThat(warned()).singleElement().asString().contains("do not match the recovered log");
    assertThat(one.fetchesFrom()).containsExactly(E1);
    assertSynchronised();
  }

  @Test
  void shouldAnswerHolesBelowItsSyncPointAtOnceAfterARestart() {
    one.commit(3, 1, 1, E1 + RECORDS + 1, PAYLOAD); // E1 + RECORDS + 1 stays a hole
    one.watermark(E1 + RECORDS + 5);
    one.advance(SyncPoints.INTERVAL_MS);
    one.crash();
    one.start();

    assertThat(one.read(E1 + RECORDS + 1)).isEqualTo(ReadResponseDescriptor.ABSENT);
    assertThat(one.read(E1 + RECORDS + 2)).isEqualTo(ReadResponseDescriptor.FOUND);
    assertThat(one.read(E1 + RECORDS + 6)).as("above the point: held").isEqualTo((byte) -1);
  }

  @Test
  void shouldSaveTheStartOfAnOpenBlindRangeNotTheWatermarkAboveIt() {
    one.lostSequencer();
    one.welcomedBy(2);
    one.watermark(Sn.of(2, 5)); // blind (E1 + RECORDS, 2.5]: its fetch never gets an answer
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(Sn.of(2, 5));
    one.advance(SyncPoints.INTERVAL_MS);
    one.crash();

    try (SyncPointFile file =
        new SyncPointFile(one.data, 1, DurabilityMode.PROCESS, () -> "boot", DurableFiles.REAL)) {
      SyncPointTable table = file.load();
      assertThat(table.entries())
          .singleElement()
          .satisfies(e -> assertThat(e.syncPoint()).isEqualTo(E1 + RECORDS));
    }
    one.start();
    one.welcomedBy(2);
    one.watermark(Sn.of(2, 5));
    assertThat(one.fetchesFrom()).containsExactly(E1 + RECORDS);
  }

  @Test
  void shouldKeepItsSyncPointWhenTheFirstWatermarkAfterARestartIsBelowIt() {
    one.advance(SyncPoints.INTERVAL_MS);
    one.crash();
    one.start();
    one.welcomedBy(1);
    one.watermark(E1); // an old catch-up watermark: opens nothing
    assertThat(one.fetchesFrom()).isEmpty();
    one.lostSequencer();
    one.welcomedBy(2);
    one.watermark(Sn.of(2, 5));

    assertThat(one.fetchesFrom()).containsExactly(E1 + RECORDS);
  }

  @Test
  void shouldKeepJoinMarksAcrossARestart() {
    one.mark(2, E1 + RECORDS + 1); // saved soon after it arrived, without waiting for the timer
    one.crash();
    one.start(); // its sequencer restarted too: nobody repeats the mark

    EmbeddedChannel subscriber = new EmbeddedChannel();
    ByteBuf subscribe =
        SubscribeDescriptor.encode(
            ByteBufAllocator.DEFAULT, 9, GLOBAL, SHARD, 0, 1 << 30, (byte) 0);
    try {
      one.engine.onSubscribe(EmbeddedConnections.of(subscriber), subscribe);
    } finally {
      subscribe.release();
    }
    one.run();
    List<ByteBuf> frames = PeeredReplica.frames(subscriber);
    assertThat(frames).isNotEmpty();
    assertThat(FrameDescriptor.type(frames.get(0))).isEqualTo(MessageType.TOPOLOGY_MARK);
    assertThat(TopologyMarkDescriptor.topologyVersion(frames.get(0))).isEqualTo(2);
    assertThat(TopologyMarkDescriptor.markSn(frames.get(0))).isEqualTo(E1 + RECORDS + 1);
    subscriber.finishAndReleaseAll();
  }

  private static void delete(Path path) {
    try {
      Files.delete(path);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
