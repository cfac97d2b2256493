package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.LogRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SubscriptionMergerTest {
  private final List<Long> released = new ArrayList<>();
  private final List<Long> dropped = new ArrayList<>();
  private final SubscriptionMerger.Sink sink =
      new SubscriptionMerger.Sink() {
        @Override
        public void released(LogRecord record, int shard) {
          released.add(record.sn());
        }

        @Override
        public void dropped(LogRecord record, int shard) {
          dropped.add(record.sn());
        }
      };

  private static LogRecord record(long sn) {
    return new LogRecord("c", sn, new byte[] {(byte) sn});
  }

  @Test
  void shouldReleaseNothingAtOrAboveTheHoldUntilAnAddedShardsProgressPassesIt() {
    SubscriptionMerger merger = new SubscriptionMerger(2, 0);
    merger.holdFrom(10); // a join mark at SN 10 arrived
    merger.onRecord(0, record(4));
    merger.onRecord(0, record(12));
    merger.onRecord(1, record(11));
    merger.onProgress(0, 20);
    merger.onProgress(1, 20);
    merger.drain(sink);
    assertThat(released).containsExactly(4L);

    int added = merger.addShard(10);
    merger.holdFrom(Long.MAX_VALUE);
    assertThat(added).isEqualTo(2);
    assertThat(merger.resumeSn(added)).isEqualTo(10);
    merger.drain(sink);
    assertThat(released).as("the new shard has not reported").containsExactly(4L);

    merger.onRecord(added, record(10));
    merger.onProgress(added, 15);
    merger.drain(sink);
    assertThat(released).containsExactly(4L, 10L, 11L, 12L);
    assertThat(merger.shardCount()).isEqualTo(3);
  }

  @Test
  void shouldStartAnAddedShardAtTheSubscriptionsStartWhenThatIsLater() {
    SubscriptionMerger merger = new SubscriptionMerger(1, 50);
    int added = merger.addShard(10);
    assertThat(merger.resumeSn(added)).isEqualTo(50);
    assertThat(merger.progress(added)).isEqualTo(49);
  }

  @Test
  void shouldHoldARecordUntilEveryShardsProgressHasPassedIt() {
    SubscriptionMerger merger = new SubscriptionMerger(2, 0);
    merger.onRecord(0, record(5));
    merger.onProgress(0, 10);
    merger.drain(sink);
    assertThat(released).isEmpty(); // shard 1 might still produce SN 3

    merger.onProgress(1, 2);
    merger.drain(sink);
    assertThat(released).isEmpty();

    merger.onRecord(1, record(3));
    merger.onProgress(1, 5);
    merger.drain(sink);
    assertThat(released).containsExactly(3L, 5L);
    assertThat(merger.releasedThrough()).isEqualTo(5);
  }

  @Test
  void shouldReleaseAcrossHolesInSnOrder() {
    SubscriptionMerger merger = new SubscriptionMerger(3, 0);
    merger.onRecord(0, record(2));
    merger.onRecord(0, record(9));
    merger.onRecord(1, record(4));
    merger.onRecord(2, record(7));
    merger.onProgress(0, 12);
    merger.onProgress(1, 12);
    merger.onProgress(2, 12);

    assertThat(merger.drain(sink)).isEqualTo(4);
    assertThat(released).containsExactly(2L, 4L, 7L, 9L);
  }

  @Test
  void shouldDropAnSnAlreadyReleasedFromAnotherShard() {
    SubscriptionMerger merger = new SubscriptionMerger(2, 0);
    merger.onRecord(0, record(3));
    merger.onRecord(1, record(3));
    merger.onProgress(0, 3);
    merger.onProgress(1, 3);

    merger.drain(sink);

    assertThat(released).containsExactly(3L);
    assertThat(dropped).containsExactly(3L);
  }

  @Test
  void shouldRefuseARecordThatBreaksItsStreamsOrder() {
    SubscriptionMerger merger = new SubscriptionMerger(1, 0);
    assertThat(merger.onRecord(0, record(5))).isTrue();
    assertThat(merger.onRecord(0, record(5))).isFalse();
    assertThat(merger.onRecord(0, record(4))).isFalse();
    merger.onProgress(0, 8);
    assertThat(merger.onRecord(0, record(7))).isFalse(); // the stream said nothing <= 8 follows
    assertThat(merger.bufferedCount()).isEqualTo(1);
  }

  @Test
  void shouldStartAtFromSnAndResumeJustPastWhatItHas() {
    SubscriptionMerger merger = new SubscriptionMerger(2, 10);
    assertThat(merger.resumeSn(0)).isEqualTo(10);
    assertThat(merger.lastReleased()).isEqualTo(9);
    merger.onRecord(0, record(12));
    assertThat(merger.resumeSn(0)).isEqualTo(13);
    merger.onProgress(0, 20);
    assertThat(merger.resumeSn(0)).isEqualTo(21);
    assertThat(merger.resumeSn(1)).isEqualTo(10);

    SubscriptionMerger fromZero = new SubscriptionMerger(1, 0);
    assertThat(fromZero.resumeSn(0)).isEqualTo(1);
  }

  @Test
  void shouldIgnoreProgressThatGoesBackwards() {
    SubscriptionMerger merger = new SubscriptionMerger(1, 0);
    merger.onProgress(0, 10);
    merger.onProgress(0, 4);
    assertThat(merger.progress(0)).isEqualTo(10);
  }

  /**
   * Random shard layouts and random interleavings of the shard streams: at every step the released
   * sequence is a prefix of the true SN order and never passes a shard's progress; at the end it is
   * the whole log, the same for every interleaving.
   */
  @Test
  void shouldReleaseTheSameSnOrderedSequenceUnderEveryInterleaving() {
    for (int seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      int shards = 1 + random.nextInt(4);
      TreeMap<Long, Integer> truth = new TreeMap<>(); // sn -> shard
      long sn = 0;
      for (int i = 0; i < 5 + random.nextInt(60); i++) {
        sn += 1 + random.nextInt(3); // holes between SNs
        truth.put(sn, random.nextInt(shards));
      }
      List<Long> first = runSchedule(truth, shards, new Random(seed * 31L + 1));
      List<Long> second = runSchedule(truth, shards, new Random(seed * 31L + 2));
      assertThat(first).as("seed %d", seed).containsExactlyElementsOf(truth.keySet());
      assertThat(second).as("seed %d", seed).isEqualTo(first);
    }
  }

  /** One shard stream's events: records then a progress, per watermark step. */
  private sealed interface Event permits Rec, Progress {}

  private record Rec(long sn) implements Event {}

  private record Progress(long sn) implements Event {}

  private static List<Long> runSchedule(TreeMap<Long, Integer> truth, int shards, Random random) {
    List<Long> steps = new ArrayList<>();
    for (long sn : truth.keySet()) {
      if (random.nextInt(3) == 0) {
        steps.add(sn + random.nextInt(2)); // sometimes a watermark right past a record
      }
    }
    steps.add(truth.lastKey() + 1);
    List<List<Event>> streams = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      List<Event> events = new ArrayList<>();
      long previous = 0;
      for (long w : steps) {
        if (w <= previous) {
          continue;
        }
        for (var entry : truth.subMap(previous, false, w, true).entrySet()) {
          if (entry.getValue() == s) {
            events.add(new Rec(entry.getKey()));
          }
        }
        events.add(new Progress(w));
        previous = w;
      }
      streams.add(events);
    }
    SubscriptionMerger merger = new SubscriptionMerger(shards, 0);
    List<Long> out = new ArrayList<>();
    SubscriptionMerger.Sink collect =
        new SubscriptionMerger.Sink() {
          @Override
          public void released(LogRecord record, int shard) {
            out.add(record.sn());
          }

          @Override
          public void dropped(LogRecord record, int shard) {
            throw new AssertionError("nothing is duplicated here: " + record.sn());
          }
        };
    int[] next = new int[shards];
    List<Long> order = new ArrayList<>(truth.keySet());
    while (true) {
      List<Integer> live = new ArrayList<>();
      for (int s = 0; s < shards; s++) {
        if (next[s] < streams.get(s).size()) {
          live.add(s);
        }
      }
      if (live.isEmpty()) {
        return out;
      }
      int s = live.get(random.nextInt(live.size()));
      Event event = streams.get(s).get(next[s]++);
      if (event instanceof Rec r) {
        assertThat(merger.onRecord(s, record(r.sn()))).isTrue();
      } else {
        merger.onProgress(s, ((Progress) event).sn());
      }
      merger.drain(collect);
      assertThat(out).isEqualTo(order.subList(0, out.size()));
      if (!out.isEmpty()) {
        assertThat(out.get(out.size() - 1)).isLessThanOrEqualTo(merger.releasedThrough());
      }
    }
  }
}
