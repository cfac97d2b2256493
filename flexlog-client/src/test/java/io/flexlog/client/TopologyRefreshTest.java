package io.flexlog.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.UnknownColorException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Shard choice and topology refreshes, against a fake node that the test reconfigures. */
class TopologyRefreshTest {
  private final FakeNode node;
  private FlexLog client;

  TopologyRefreshTest() throws InterruptedException {
    node = new FakeNode();
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    node.close();
  }

  private FlexLog connect() {
    client =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(node.bootstrap())
                .requestTimeout(Duration.ofMillis(200))
                .deliveryTimeout(Duration.ofSeconds(10))
                .readTimeout(Duration.ofSeconds(5))
                .build());
    return client;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldResumeAShardWhoseReplicaFellSilentWithoutLossOrRepeats() {
    // Shard 10 holds SNs 5, 6, 8, 9 and shard 11 holds 3. Progress is 6 at first, then 10. The
    // first stream of shard 10 sends what it has up to 6 and then nothing ever again: only the
    // liveness timeout can get the subscription past SN 6.
    node.shardRecords.put(10, new long[] {5, 6, 8, 9});
    node.shardRecords.put(11, new long[] {3});
    node.subscribeProgress = 6;
    node.silentSubscribes.add("10#1");
    node.heartbeatEvery(50);
    client =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(node.bootstrap())
                .subscribeLivenessTimeout(Duration.ofMillis(400))
                .build());
    try (RecordStream stream = client.subscribe("global", 1)) {
      assertThat(stream.poll(Duration.ofSeconds(5)).sn()).isEqualTo(3);
      assertThat(stream.poll(Duration.ofSeconds(5)).sn()).isEqualTo(5);
      assertThat(stream.poll(Duration.ofSeconds(5)).sn()).isEqualTo(6);
      node.subscribeProgress = 10; // the live stream of shard 11 says so in its heartbeats

      List<Long> rest = new java.util.ArrayList<>();
      for (LogRecord r = stream.poll(Duration.ofSeconds(5));
          r != null && rest.size() < 2;
          r = rest.size() < 2 ? stream.poll(Duration.ofSeconds(5)) : null) {
        rest.add(r.sn());
      }
      assertThat(rest).containsExactly(8L, 9L);
      assertThat(stream.poll(Duration.ofMillis(300))).isNull(); // nothing repeated
    }
    List<long[]> subscribes = List.copyOf(node.subscribes);
    assertThat(subscribes.stream().filter(s -> s[0] == 10).map(s -> s[1]))
        .as("shard 10 resumed after what it had")
        .containsExactly(1L, 7L);
  }

  @Test
  void shouldSpreadAppendsRoundRobinAndKeepEachKeyOnOneShard() {
    FlexLog log = connect();
    for (int i = 0; i < 10; i++) {
      log.append("global", bytes("v" + i));
    }
    List<Integer> roundRobin = node.appends.stream().map(a -> a[1]).toList();
    assertThat(roundRobin).containsOnly(10, 11);
    assertThat(roundRobin.stream().filter(s -> s == 10).count()).isEqualTo(5);

    Set<Integer> shardsOfKeys = new HashSet<>();
    for (int k = 0; k < 20; k++) {
      node.appends.clear();
      for (int i = 0; i < 3; i++) {
        log.append("global", bytes("key-" + k), bytes("v" + i));
      }
      Set<Integer> shards = new HashSet<>(node.appends.stream().map(a -> a[1]).toList());
      assertThat(shards).as("shards of key-%s", k).hasSize(1);
      shardsOfKeys.addAll(shards);
    }
    assertThat(shardsOfKeys).containsExactlyInAnyOrder(10, 11);
  }

  @Test
  void shouldUseAColorCreatedAfterConnectingWithoutReconnecting() {
    FlexLog log = connect();
    node.metadata = node.topology(2, true);
    node.replicaColors.add(FakeNode.FRESH);

    long sn = log.append("fresh", bytes("new"));

    assertThat(sn).isPositive();
    assertThat(node.appends).singleElement().satisfies(a -> assertThat(a).containsExactly(1, 12));
    assertThat(log.topology().color("fresh")).isPresent();
    assertThat(log.read("fresh", sn + 100)).isEmpty();
  }

  @Test
  void shouldKeepRetryingWhileOnlyTheNodeIsBehindTheTopology() throws Exception {
    node.metadata = node.topology(2, true);
    FlexLog log = connect();
    ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    try {
      later.schedule(() -> node.replicaColors.add(FakeNode.FRESH), 600, TimeUnit.MILLISECONDS);

      long sn = log.append("fresh", bytes("eventually"));

      assertThat(sn).isPositive();
      assertThat(node.unknownAnswers.get()).isPositive();
      assertThat(node.metadataRequests.get()).isGreaterThanOrEqualTo(2);
    } finally {
      later.shutdownNow();
    }
  }

  @Test
  void shouldFailWithUnknownColorOnceTheRefreshedTopologyLacksTheColor() {
    node.metadata = node.topology(2, true);
    FlexLog log = connect();
    node.metadata = node.topology(3, false);

    assertThatThrownBy(() -> log.append("fresh", bytes("x")))
        .isInstanceOf(UnknownColorException.class);
    assertThatThrownBy(() -> log.read("fresh", 5)).isInstanceOf(UnknownColorException.class);
    assertThatThrownBy(() -> log.subscribe("fresh", 0))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("fresh");
    assertThat(log.topology().version()).isEqualTo(3);
  }

  @Test
  void shouldAnswerAsyncCallersOfAnUnknownColorWithAFailedFuture() {
    FlexLog log = connect();

    CompletableFuture<Long> append = log.appendAsync("nowhere", bytes("x"));

    assertThatThrownBy(append::join).hasCauseInstanceOf(UnknownColorException.class);
    assertThat(node.metadataRequests.get()).isEqualTo(2); // connect, then one refresh
  }

  @Test
  void shouldRejectBadSubscriptionArgumentsWithTypedErrors() {
    FlexLog log = connect();

    assertThatThrownBy(() -> log.subscribe("global", -1))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining(">= 0");
    assertThatThrownBy(() -> log.subscribe("global", 0, null))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> log.appendAsync("global", null, bytes("x")))
        .isInstanceOf(InvalidArgumentException.class);
  }
}
