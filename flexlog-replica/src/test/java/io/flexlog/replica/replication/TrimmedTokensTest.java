package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.util.DurableFiles;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.TrimmedTokenFile;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens of trimmed records across a restart (docs/architecture.md#retention, "Trimmed tokens"):
 * recovery rebuilds the window of committed tokens from the log, which no longer holds a trimmed
 * record, so without the trimmed-token file a restarted replica would take a late copy of such a
 * record for a new one and let it be ordered a second time.
 */
class TrimmedTokensTest {
  private static final long E1 = Sn.of(1, 0);
  private static final long SESSION = 7;
  private static final byte[] PAYLOAD = new byte[64];

  @TempDir Path dir;
  private final List<PeeredReplica> replicas = new ArrayList<>();

  private PeeredReplica replica(int nodeId) {
    PeeredReplica replica = PeeredReplica.welcomed(dir, nodeId, E1);
    replicas.add(replica);
    return replica;
  }

  @AfterEach
  void stop() {
    replicas.forEach(PeeredReplica::close);
  }

  /** The SNs of the APPEND_ACKs the replica wrote to its client since the last look. */
  private static List<Long> acks(PeeredReplica replica) {
    return PeeredReplica.frames(replica.client).stream()
        .filter(f -> FrameDescriptor.type(f) == MessageType.APPEND_ACK)
        .map(AppendAckDescriptor::sn)
        .toList();
  }

  private static double pending(PeeredReplica replica) {
    return replica.registry.get("flexlog.replica.pending").gauge().value();
  }

  private static void restart(PeeredReplica replica) {
    replica.crash();
    replica.start();
    replica.welcomedBy(2);
  }

  @Test
  void shouldAnswerARetryOfATrimmedRecordWithItsSnAfterARestart() {
    PeeredReplica one = replica(1);
    one.commit(SESSION, 1, 5, E1, PAYLOAD);
    one.watermark(E1 + 5);
    assertThat(one.trim(1, E1 + 3)).isEqualTo(MessageType.TRIM_RESPONSE);
    assertThat(one.registry.get("flexlog.replica.trimmed.tokens").counter().count()).isEqualTo(3);

    restart(one);
    one.deliverAppend(SESSION, 2, PAYLOAD); // a retry that stayed in the network
    one.deliverAppend(SESSION, 5, PAYLOAD);
    one.run();

    assertThat(acks(one)).containsExactly(E1 + 2, E1 + 5);
    assertThat(pending(one)).as("neither is stored again").isZero();
    assertThat(one.registry.get("flexlog.replica.trimmed.tokens.stored").gauge().value())
        .isEqualTo(3);
  }

  /**
   * Seed 14000414 of the failover simulation, shrunk: replica one stored a record whose SN never
   * reached it; two committed the record, trimmed it and restarted. One's token sync after a
   * sequencer failover must learn the SN from two instead of ordering the record again.
   */
  @Test
  void shouldGiveAPeersPendingCopyTheSnOfARecordTrimmedBeforeARestart() {
    PeeredReplica one = replica(1);
    PeeredReplica two = replica(2);
    two.commit(SESSION, 1, 3, E1, PAYLOAD);
    two.watermark(E1 + 3);
    one.deliverAppend(SESSION, 2, PAYLOAD);
    one.run();
    assertThat(two.trim(1, E1 + 3)).isEqualTo(MessageType.TRIM_RESPONSE);
    restart(two);

    one.lostSequencer();
    one.welcomedBy(2);
    tokenSync(one, two);

    assertThat(acks(one)).containsExactly(E1 + 2);
    assertThat(pending(one)).isZero();
  }

  @Test
  void shouldRefuseATrimWhoseTokensCannotBeStored() throws IOException {
    PeeredReplica one = replica(1);
    one.commit(SESSION, 1, 3, E1, PAYLOAD);
    one.watermark(E1 + 3);
    one.crash();
    one.start(new TrimmedTokenFile(one.data, 1, DurabilityMode.FSYNC, new FailingForce()));
    one.welcomedBy(2);

    assertThat(one.trim(1, E1 + 2)).isEqualTo(MessageType.ERROR);
    assertThat(one.trimPoint()).as("not trimmed: its tokens would be forgotten").isZero();
  }

  /** Delivers {@code from}'s TOKEN_SYNC requests to {@code to} and the answers back. */
  private static void tokenSync(PeeredReplica from, PeeredReplica to) {
    List<ByteBuf> sent = new ArrayList<>(from.toPeers);
    from.toPeers.clear();
    assertThat(sent).isNotEmpty();
    for (ByteBuf frame : sent) {
      try {
        if (FrameDescriptor.type(frame) == MessageType.TOKEN_SYNC) {
          to.engine.onTokenSync(EmbeddedConnections.of(to.fromPeer), frame);
        }
      } finally {
        frame.release();
      }
    }
    to.run();
    for (ByteBuf answer : PeeredReplica.frames(to.fromPeer)) {
      assertThat(FrameDescriptor.type(answer)).isEqualTo(MessageType.TOKEN_SYNC_RESPONSE);
      from.engine.onTokenSyncResponse(answer);
    }
    from.run();
  }

  /** File steps whose force fails, as a disk that refuses writes. */
  private static final class FailingForce implements DurableFiles.FileOps {
    @Override
    public void force(FileChannel channel) throws IOException {
      throw new IOException("fabricated write failure");
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
}
