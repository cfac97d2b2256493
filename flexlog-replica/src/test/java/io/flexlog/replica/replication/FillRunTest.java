package io.flexlog.replica.replication;

import static io.flexlog.replica.replication.PeeredReplica.GLOBAL;
import static io.flexlog.replica.replication.PeeredReplica.SHARD;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync phase's fill of a run of awaited SNs (docs/architecture.md#sync-phase, "Fill"): a client
 * that died in the middle of a batch leaves replica one with many SNs assigned and no records. Once
 * they have been awaited for {@link RangeSync#FILL_AFTER_MS}, one fill fetches them all from the
 * peers, not one SN per {@link RangeSync#FILL_AFTER_MS}.
 */
class FillRunTest {
  private static final long E1 = Sn.of(1, 0);
  private static final long SESSION = 7;
  private static final int RECORDS = 200;
  private static final byte[] PAYLOAD = new byte[64];

  @TempDir Path dir;
  private PeeredReplica one;
  private PeeredReplica two;

  @BeforeEach
  void start() {
    one = PeeredReplica.welcomed(dir, 1, E1);
    two = PeeredReplica.welcomed(dir, 2, E1);
    two.commit(SESSION, 1, RECORDS, E1, PAYLOAD);
    two.watermark(E1 + RECORDS);
    // One gets the first APPEND only, and every ORDER_RESPONSE: E1 + 2 .. E1 + RECORDS await.
    one.deliverAppend(SESSION, 1, PAYLOAD);
    one.run();
    for (int sequence = 1; sequence <= RECORDS; sequence++) {
      one.order(SESSION, sequence, E1 + sequence);
    }
    one.watermark(E1 + RECORDS);
    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + 1);
  }

  @AfterEach
  void stop() {
    one.close();
    two.close();
  }

  @Test
  void shouldFillEveryOverdueSnOfTheRunWithoutWaitingAgainForEach() {
    one.advance(RangeSync.FILL_AFTER_MS);
    one.syncWith(two);
    // A fill answer carries at most RangeSync.MAX_RECORDS records; the next fill of the same run
    // starts at the next turn's end, without another FILL_AFTER_MS.
    for (int turn = 0;
        turn < 4 && one.engine.committedThrough(SHARD, GLOBAL) < E1 + RECORDS;
        turn++) {
      one.advance(1);
      one.syncWith(two);
    }

    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + RECORDS);
    assertThat(one.read(E1 + RECORDS)).isEqualTo(ReadResponseDescriptor.FOUND);
  }

  @Test
  void shouldNotFillSnsAssignedAfterTheRunBeganBeforeTheyAreOverdue() {
    one.advance(RangeSync.FILL_AFTER_MS / 2);
    two.commit(SESSION, RECORDS + 1, RECORDS + 1, E1, PAYLOAD);
    one.order(SESSION, RECORDS + 1, E1 + RECORDS + 1); // assigned now: its APPEND may still come
    one.advance(RangeSync.FILL_AFTER_MS / 2);
    one.syncWith(two);
    for (int turn = 0; turn < 4; turn++) {
      one.advance(1);
      one.syncWith(two);
    }

    assertThat(one.engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1 + RECORDS);
  }
}
