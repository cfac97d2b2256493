package io.flexlog.server.consumer;

import static io.flexlog.server.consumer.ConsumerCluster.pollCount;
import static io.flexlog.server.consumer.ConsumerCluster.pollUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.ColorDescription;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.CommitFailedException;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRebalanceListener;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.ConsumerRecords;
import io.flexlog.client.consumer.FlexLogConsumer;
import io.flexlog.client.consumer.PositionOutOfRangeException;
import io.flexlog.client.consumer.RecordDeserializationException;
import io.flexlog.core.error.UnknownColorException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FlexLogConsumer end to end on the embedded cluster: color {@code orders} with 4 shards, committed
 * positions in the group's own color, groups of in-process consumers.
 */
class ConsumerEndToEndTest {
  private static final String COLOR = "orders";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @TempDir Path data;
  private ConsumerCluster c;

  @BeforeEach
  void start() throws Exception {
    c = new ConsumerCluster(data, COLOR, 4);
  }

  @AfterEach
  void stop() {
    if (c != null) {
      c.close();
    }
  }

  private List<Long> append(int count, String prefix) {
    List<Long> sns = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      sns.add(c.log.append(COLOR, (prefix + i).getBytes(StandardCharsets.UTF_8)));
    }
    return sns;
  }

  private static List<Long> sns(List<? extends ConsumerRecord<?, ?>> records) {
    return records.stream().map(ConsumerRecord::sn).toList();
  }

  @Test
  void shouldReadAWholeColorInItsTotalOrder() {
    List<Long> appended = append(40, "r");
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(c.settings(null));
    consumer.assign(List.of(ColorShard.wholeColor(COLOR)));
    List<ConsumerRecord<byte[], byte[]>> got = pollCount(consumer, 40, PATIENCE);
    assertThat(sns(got)).isEqualTo(appended);
    assertThat(got.get(0).shard()).isEqualTo(ColorShard.WHOLE_COLOR);
    assertThat(consumer.position(ColorShard.wholeColor(COLOR))).isEqualTo(appended.get(39) + 1);
  }

  @Test
  void shouldSplitShardsAmongMembersAndResumeAfterTheCommittedPositions() {
    List<Long> appended = append(80, "r");
    FlexLogConsumer<byte[], byte[]> a = c.consumer(c.settings("g1"));
    FlexLogConsumer<byte[], byte[]> b = c.consumer(c.settings("g1"));
    ShardOrder orderA = new ShardOrder("a");
    ShardOrder orderB = new ShardOrder("b");
    a.subscribe(List.of(COLOR), orderA);
    b.subscribe(List.of(COLOR), orderB);
    // Whoever joins first may read every shard until the other's JOIN moves two of them; the new
    // owner starts at the committed position (none yet: earliest) and reads them again
    // (at-least-once). So: every SN read at least once, and each member reads each shard in SN
    // order from each assignment of it on, until each member is past the end of its shards.
    Map<Long, Integer> shardOf = new TreeMap<>();
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!(shardOf.size() == appended.size()
            && a.assignment().size() == 2
            && b.assignment().size() == 2
            && pastTheEnd(a, shardOf)
            && pastTheEnd(b, shardOf))
        && System.nanoTime() < deadline) {
      orderA.check(a.poll(Duration.ofMillis(20))).forEach(r -> shardOf.put(r.sn(), r.shard()));
      orderB.check(b.poll(Duration.ofMillis(20))).forEach(r -> shardOf.put(r.sn(), r.shard()));
    }
    assertThat(a.assignment()).hasSize(2);
    assertThat(b.assignment()).hasSize(2);
    assertThat(shardOf.keySet()).containsExactlyElementsOf(appended);
    assertThat(pastTheEnd(a, shardOf)).as("a read its shards to the end").isTrue();
    assertThat(pastTheEnd(b, shardOf)).as("b read its shards to the end").isTrue();
    a.commitSync();
    b.commitSync();
    Set<ColorShard> all = new TreeSet<>(a.assignment());
    all.addAll(b.assignment());
    Map<ColorShard, Long> committed = a.committed(all);
    assertThat(committed).hasSize(4);

    // The group restarts: new members read only what came after the commits.
    a.close();
    b.close();
    List<Long> later = append(20, "later");
    FlexLogConsumer<byte[], byte[]> a2 = c.consumer(c.settings("g1"));
    a2.subscribe(List.of(COLOR));
    List<ConsumerRecord<byte[], byte[]>> again = pollCount(a2, 20, PATIENCE);
    assertThat(new TreeSet<>(sns(again))).containsExactlyElementsOf(later);
  }

  @Test
  void shouldReadAShardThatMovesToANewMemberAgainFromItsCommittedPosition() {
    append(80, "r");
    Map<String, Object> settings = c.settings("g6");
    settings.put("max.poll.records", "5");
    FlexLogConsumer<byte[], byte[]> a = c.consumer(settings);
    a.subscribe(List.of(COLOR));
    // a, alone in the group, reads half of the records, commits, and reads the rest.
    List<ConsumerRecord<byte[], byte[]>> first = pollCount(a, 40, PATIENCE);
    a.commitSync();
    List<ConsumerRecord<byte[], byte[]>> rest = pollCount(a, 40, PATIENCE);
    assertThat(first.size() + rest.size()).isEqualTo(80);
    Map<Long, Integer> shardOf = new TreeMap<>();
    first.forEach(r -> shardOf.put(r.sn(), r.shard()));
    rest.forEach(r -> shardOf.put(r.sn(), r.shard()));
    Set<ColorShard> all = new TreeSet<>(a.assignment());
    assertThat(all).hasSize(4);
    Map<ColorShard, Long> committed = a.committed(all);

    // b joins and takes two shards: it reads them from a's committed positions, so it returns
    // again what a returned after its commit (at-least-once), in SN order per shard.
    FlexLogConsumer<byte[], byte[]> b = c.consumer(c.settings("g6"));
    ShardOrder orderB = new ShardOrder("b");
    b.subscribe(List.of(COLOR), orderB);
    Map<Integer, List<Long>> readByB = new HashMap<>();
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!(b.assignment().size() == 2 && a.assignment().size() == 2 && pastTheEnd(b, shardOf))
        && System.nanoTime() < deadline) {
      a.poll(Duration.ofMillis(20));
      orderB
          .check(b.poll(Duration.ofMillis(20)))
          .forEach(r -> readByB.computeIfAbsent(r.shard(), s -> new ArrayList<>()).add(r.sn()));
    }

    assertThat(b.assignment()).hasSize(2);
    assertThat(a.assignment()).hasSize(2).doesNotContainAnyElementsOf(b.assignment());
    for (ColorShard cs : b.assignment()) {
      long from = committed.getOrDefault(cs, 0L);
      List<Long> expected =
          shardOf.entrySet().stream()
              .filter(e -> e.getValue() == cs.shard() && e.getKey() >= from)
              .map(Map.Entry::getKey)
              .toList();
      assertThat(readByB.getOrDefault(cs.shard(), List.of()))
          .as("b reads %s from the committed position %d", cs, from)
          .isEqualTo(expected);
    }
  }

  /** True when {@code consumer}'s position on each of its shards is past that shard's last SN. */
  private static boolean pastTheEnd(
      FlexLogConsumer<byte[], byte[]> consumer, Map<Long, Integer> shardOf) {
    for (ColorShard cs : consumer.assignment()) {
      long last = -1;
      for (Map.Entry<Long, Integer> e : shardOf.entrySet()) {
        if (e.getValue() == cs.shard()) {
          last = Math.max(last, e.getKey());
        }
      }
      if (consumer.position(cs) <= last) {
        return false;
      }
    }
    return true;
  }

  /**
   * One member's per-shard order: SNs strictly increase on each shard from each assignment of it
   * on. A (re)assigned shard restarts at its committed position, so what it returns may repeat what
   * this or another member returned before (at-least-once; docs/architecture.md#consumer-groups).
   */
  private static final class ShardOrder implements ConsumerRebalanceListener {
    private final String member;
    private final Map<Integer, Long> last = new HashMap<>();

    ShardOrder(String member) {
      this.member = member;
    }

    @Override
    public void onRevoked(Collection<ColorShard> revoked) {
      revoked.forEach(cs -> last.remove(cs.shard()));
    }

    @Override
    public void onAssigned(Collection<ColorShard> assigned) {
      assigned.forEach(cs -> last.remove(cs.shard()));
    }

    /** Checks {@code records} (one poll's) against what this member returned before. */
    ConsumerRecords<byte[], byte[]> check(ConsumerRecords<byte[], byte[]> records) {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        Long before = last.put(r.shard(), r.sn());
        if (before != null) {
          assertThat(r.sn())
              .as("member %s, shard %d in SN order", member, r.shard())
              .isGreaterThan(before);
        }
      }
      return records;
    }
  }

  @Test
  void shouldCreateTheGroupColorThroughTheBootstrapServersAlone() {
    List<Long> appended = append(12, "b");
    String groupColor = ConsumerConfig.GROUP_COLOR_PREFIX + "boot-only";
    try (FlexLogAdmin admin = FlexLogAdmin.create(c.cluster.bootstrap())) {
      assertThatThrownBy(() -> admin.describeColor(groupColor))
          .isInstanceOf(UnknownColorException.class);
      // No admin address anywhere: only the bootstrap servers, which relay the AddColor.
      Map<String, Object> settings =
          Map.of(
              "bootstrap.servers", c.cluster.bootstrap(),
              "group.id", "boot-only",
              "auto.offset.reset", "earliest");
      FlexLogConsumer<byte[], byte[]> consumer = c.consumer(settings);
      consumer.subscribe(List.of(COLOR));
      List<ConsumerRecord<byte[], byte[]>> got = pollCount(consumer, 12, PATIENCE);
      consumer.commitSync();

      assertThat(new TreeSet<>(sns(got))).containsExactlyElementsOf(appended);
      assertThat(consumer.assignment()).hasSize(4);
      ColorDescription created = admin.describeColor(groupColor);
      assertThat(created.parent()).contains("global");
      assertThat(created.shardIds()).hasSize(1);
      assertThat(consumer.committed(consumer.assignment())).hasSize(4);
    }
  }

  @Test
  void shouldCommitOnCloseWithAutoCommitAndResumeThere() {
    List<Long> first = append(30, "r");
    Map<String, Object> auto = c.settings("g5");
    auto.put("enable.auto.commit", "true");
    FlexLogConsumer<byte[], byte[]> a = c.consumer(auto);
    a.subscribe(List.of(COLOR));
    assertThat(new TreeSet<>(sns(pollCount(a, 30, PATIENCE)))).containsExactlyElementsOf(first);
    a.close();
    List<Long> later = append(10, "later");
    FlexLogConsumer<byte[], byte[]> b = c.consumer(auto);
    b.subscribe(List.of(COLOR));
    assertThat(new TreeSet<>(sns(pollCount(b, 10, PATIENCE)))).containsExactlyElementsOf(later);
  }

  @Test
  void shouldRejectACommitForAShardLostToARebalance() {
    append(8, "r");
    FlexLogConsumer<byte[], byte[]> a = c.consumer(c.settings("g2"));
    a.subscribe(List.of(COLOR));
    pollUntil(a, PATIENCE, () -> a.assignment().size() == 4);
    assertThat(a.assignment()).hasSize(4);
    FlexLogConsumer<byte[], byte[]> b = c.consumer(c.settings("g2"));
    b.subscribe(List.of(COLOR));
    pollUntil(b, PATIENCE, () -> b.assignment().size() == 2);
    ColorShard lost = b.assignment().iterator().next();
    // 'a' has not polled since: it still thinks it owns the shard, the group log knows better.
    assertThatThrownBy(() -> a.commitSync(Map.of(lost, 1L)))
        .isInstanceOf(CommitFailedException.class)
        .hasMessageContaining(lost.toString())
        .hasMessageContaining("no longer assigned");
    b.commitSync(Map.of(lost, 2L));
    assertThat(b.committed(Set.of(lost))).containsEntry(lost, 2L);
  }

  @Test
  void shouldReassignTheShardsOfAMemberThatStopsPolling() {
    append(8, "r");
    Map<String, Object> slow = c.settings("g3");
    slow.put("max.poll.interval.ms", "1000");
    FlexLogConsumer<byte[], byte[]> a = c.consumer(slow);
    FlexLogConsumer<byte[], byte[]> b = c.consumer(c.settings("g3"));
    a.subscribe(List.of(COLOR));
    b.subscribe(List.of(COLOR));
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while ((a.assignment().size() != 2 || b.assignment().size() != 2)
        && System.nanoTime() < deadline) {
      a.poll(Duration.ofMillis(20));
      b.poll(Duration.ofMillis(20));
    }
    assertThat(a.assignment()).hasSize(2);
    // 'a' stops polling: after max.poll.interval.ms it leaves, and 'b' gets every shard.
    pollUntil(b, PATIENCE, () -> b.assignment().size() == 4);
    assertThat(b.assignment()).hasSize(4);
  }

  @Test
  void shouldNameTheRecordThatDoesNotDeserializeAndLetTheConsumerSeekPastIt() {
    List<Long> sns = append(3, "ok");
    long bad = c.log.append(COLOR, "bad".getBytes(StandardCharsets.UTF_8));
    List<Long> after = append(3, "ok-after");
    Map<String, Object> settings = c.settings(null);
    FlexLogConsumer<byte[], String> consumer =
        new FlexLogConsumer<>(
            ConsumerConfig.fromMap(settings),
            null,
            (color, bytes) -> {
              String s = new String(bytes, StandardCharsets.UTF_8);
              if (s.equals("bad")) {
                throw new IllegalArgumentException("not an order");
              }
              return s;
            });
    try (consumer) {
      ColorShard whole = ColorShard.wholeColor(COLOR);
      consumer.assign(List.of(whole));
      List<ConsumerRecord<byte[], String>> got = new ArrayList<>();
      RecordDeserializationException error = null;
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (error == null && System.nanoTime() < deadline) {
        try {
          consumer.poll(Duration.ofMillis(50)).forEach(got::add);
        } catch (RecordDeserializationException e) {
          error = e;
        }
      }
      assertThat(sns(got)).isEqualTo(sns);
      assertThat(error).isNotNull();
      assertThat(error.sn()).isEqualTo(bad);
      assertThat(error.getMessage()).contains("'orders'").contains("SN " + bad);
      assertThat(consumer.position(whole)).isEqualTo(bad);
      consumer.seek(whole, bad + 1);
      assertThat(sns(pollCount(consumer, 3, PATIENCE))).isEqualTo(after);
    }
  }

  @Test
  void shouldFailOrResetAPositionThatWasTrimmedAsConfigured() {
    List<Long> sns = append(10, "r");
    c.log.trim(COLOR, sns.get(4));
    ColorShard whole = ColorShard.wholeColor(COLOR);

    Map<String, Object> none = c.settings(null);
    none.put("auto.offset.reset", "none");
    FlexLogConsumer<byte[], byte[]> strict = c.consumer(none);
    strict.assign(List.of(whole));
    strict.seek(whole, sns.get(1));
    assertThatThrownBy(() -> pollCount(strict, 1, PATIENCE))
        .isInstanceOf(PositionOutOfRangeException.class)
        .hasMessageContaining("orders")
        .hasMessageContaining(Long.toString(sns.get(1)));

    FlexLogConsumer<byte[], byte[]> lenient = c.consumer(c.settings(null));
    lenient.assign(List.of(whole));
    lenient.seek(whole, sns.get(1));
    assertThat(sns(pollCount(lenient, 5, PATIENCE))).isEqualTo(sns.subList(5, 10));
  }

  @Test
  void shouldRefuseToPollWithoutASubscription() {
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(c.settings("g4"));
    assertThatThrownBy(() -> consumer.poll(Duration.ofMillis(10)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("poll without a subscription");
  }

  @Test
  void shouldSeekToTheEndAndReadOnlyNewRecords() {
    append(12, "old");
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(c.settings(null));
    ColorShard whole = ColorShard.wholeColor(COLOR);
    consumer.assign(List.of(whole));
    consumer.seekToEnd(List.of(whole));
    List<Long> fresh = append(3, "new");
    assertThat(sns(pollCount(consumer, 3, PATIENCE))).isEqualTo(fresh);
  }

  @Test
  void shouldReportWhereEachShardBeginsAndEnds() {
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(c.settings(null));
    ColorShard whole = ColorShard.wholeColor(COLOR);
    ColorShard s0 = ColorShard.of(COLOR, firstShard());
    long emptyEnd = consumer.endPositions(List.of(whole)).get(whole);
    assertThat(emptyEnd).isEqualTo(c.log.tail(COLOR).tail() + 1); // no record yet: epoch.0 + 1
    assertThat(consumer.beginningPositions(List.of(whole))).containsEntry(whole, 1L);

    List<Long> sns = append(10, "r");
    assertThat(sns.get(0)).isGreaterThanOrEqualTo(emptyEnd);
    c.log.trim(COLOR, sns.get(3));
    assertThat(consumer.beginningPositions(List.of(whole, s0)))
        .containsExactly(Map.entry(whole, sns.get(3) + 1), Map.entry(s0, sns.get(3) + 1));
    assertThat(consumer.endPositions(List.of(whole, s0)))
        .containsExactly(Map.entry(whole, sns.get(9) + 1), Map.entry(s0, sns.get(9) + 1));

    consumer.assign(List.of(whole));
    consumer.seek(whole, consumer.beginningPositions(List.of(whole)).get(whole));
    assertThat(sns(pollCount(consumer, 6, PATIENCE))).isEqualTo(sns.subList(4, 10));
    assertThat(consumer.position(whole))
        .isEqualTo(consumer.endPositions(List.of(whole)).get(whole));

    assertThatThrownBy(() -> consumer.endPositions(List.of(ColorShard.wholeColor("no-such"))))
        .isInstanceOf(UnknownColorException.class);
  }

  @Test
  void shouldStartAtTheEndWithAutoOffsetResetLatestWithoutMovingTheTrimPoint() {
    append(5, "old");
    Map<String, Object> latest = c.settings(null);
    latest.put("auto.offset.reset", "latest");
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(latest);
    ColorShard whole = ColorShard.wholeColor(COLOR);
    consumer.assign(List.of(whole));
    long start = consumer.position(whole);
    List<Long> fresh = append(3, "new");
    assertThat(start).isLessThanOrEqualTo(fresh.get(0));
    assertThat(sns(pollCount(consumer, 3, PATIENCE))).isEqualTo(fresh);
    assertThat(c.log.tail(COLOR).head()).as("a reader never trims").isEqualTo(1L);
  }

  @Test
  void shouldPauseAndResumeAShard() {
    append(12, "r");
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(c.settings(null));
    ColorShard s0 = ColorShard.of(COLOR, firstShard());
    consumer.assign(List.of(s0));
    consumer.pause(List.of(s0));
    assertThat(consumer.poll(Duration.ofMillis(300)).isEmpty()).isTrue();
    consumer.resume(List.of(s0));
    assertThat(pollCount(consumer, 3, PATIENCE)).hasSizeGreaterThanOrEqualTo(3);
  }

  private int firstShard() {
    int colorId = c.log.topology().color(COLOR).orElseThrow().id();
    return c.log.topology().shardsInSubtree(colorId).stream()
        .mapToInt(s -> s.id())
        .min()
        .orElseThrow();
  }
}
