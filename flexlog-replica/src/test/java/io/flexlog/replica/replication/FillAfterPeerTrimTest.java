package io.flexlog.replica.replication;

import static io.flexlog.replica.replication.PeeredReplica.GLOBAL;
import static io.flexlog.replica.replication.PeeredReplica.SHARD;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync phase's fill when the peers trimmed the record (docs/architecture.md#sync-phase,
 * "Fill"): replica one was told an SN whose APPEND never reached it; replica two committed the
 * record and then trimmed it by retention, which one refused (beyond its committed bound). Without
 * the peer's trim point in SYNC_ENTRIES, one would await the SN for ever, and its reads and
 * subscriptions would stop below it.
 */
class FillAfterPeerTrimTest {
  private static final long E1 = Sn.of(1, 0);
  private static final long SESSION = 7;
  private static final byte[] PAYLOAD = new byte[64];
  private static final long RETENTION_TRIM = RetentionPolicy.REQUEST_ID_BASE + 1;

  @TempDir Path dir;
  private PeeredReplica one;
  private PeeredReplica two;

  @BeforeEach
  void start() {
    one = PeeredReplica.welcomed(dir, 1, E1);
    two = PeeredReplica.welcomed(dir, 2, E1);
    two.commit(SESSION, 1, 5, E1, PAYLOAD);
    two.watermark(E1 + 5);
    // One gets the APPENDs of tokens 1, 3, 4 and 5, and every ORDER_RESPONSE: E1 + 2 is awaited.
    for (int sequence : new int[] {1, 3, 4, 5}) {
      one.deliverAppend(SESSION, sequence, PAYLOAD);
    }
    one.run();
    for (int sequence = 1; sequence <= 5; sequence++) {
      one.order(SESSION, sequence, E1 + sequence);
    }
    one.watermark(E1 + 5);
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + 1);
  }

  @AfterEach
  void stop() {
    one.close();
    two.close();
  }

  /** The fill's turn comes once the SN has been awaited for a second. */
  private void fillFrom(PeeredReplica peer) {
    one.advance(RangeSync.FILL_AFTER_MS);
    assertThat(one.fetchesFrom()).as("the fill of %s", Sn.describe(E1 + 2)).contains(E1 + 1);
    one.syncWith(peer);
  }

  @Test
  void shouldTakeThePeersTrimPointWhenTheAwaitedRecordWasTrimmedThere() {
    assertThat(two.trim(RETENTION_TRIM, E1 + 4)).isEqualTo(MessageType.TRIM_RESPONSE);
    assertThat(one.trim(RETENTION_TRIM, E1 + 4))
        .as("beyond what one committed")
        .isEqualTo(MessageType.ERROR);

    fillFrom(two);

    assertThat(one.trimPoint()).isEqualTo(E1 + 4);
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + 5);
    assertThat(one.read(E1 + 2)).isEqualTo(ReadResponseDescriptor.TRIMMED);
    assertThat(one.read(E1 + 5)).isEqualTo(ReadResponseDescriptor.FOUND);
    assertThat(one.registry.get("flexlog.replica.trims.adopted").counter().count()).isEqualTo(1);
    one.advance(RangeSync.RETRY_MS);
    assertThat(one.fetchesFrom()).as("the fill is over").isEmpty();
  }

  @Test
  void shouldFetchTheRecordWhenThePeerTrimmedOnlyBelowIt() {
    assertThat(two.trim(RETENTION_TRIM, E1 + 1)).isEqualTo(MessageType.TRIM_RESPONSE);
    assertThat(one.trim(RETENTION_TRIM, E1 + 1)).isEqualTo(MessageType.TRIM_RESPONSE);

    fillFrom(two);

    assertThat(one.trimPoint()).isEqualTo(E1 + 1);
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + 5);
    assertThat(one.read(E1 + 2)).isEqualTo(ReadResponseDescriptor.FOUND);
    assertThat(one.registry.get("flexlog.replica.trims.adopted").counter().count()).isZero();
  }

  @Test
  void shouldTrimNoFurtherThanWhatItKnowsToBeAssigned() {
    two.commit(SESSION, 6, 8, E1, PAYLOAD); // one never hears of E1 + 6 .. E1 + 8
    two.watermark(E1 + 8);
    assertThat(two.trim(RETENTION_TRIM, E1 + 8)).isEqualTo(MessageType.TRIM_RESPONSE);

    fillFrom(two);

    assertThat(one.trimPoint()).as("one's tail").isEqualTo(E1 + 5);
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + 5);
  }
}
