package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The metadata role: one fetch at a time, newer topologies only, callbacks after every fetch. */
class ClientMetadataTest {
  private final ClientHarness client = new ClientHarness(ClientHarness.topology(5, false));

  @AfterEach
  void release() {
    client.close();
  }

  @Test
  void shouldFetchOnceForConcurrentRefreshesAndRunEveryCallbackAfterIt() {
    List<String> ran = new ArrayList<>();
    client.metadata.refresh(() -> ran.add("first"));
    client.metadata.refresh(() -> ran.add("second"));
    assertThat(client.fetches).hasSize(1);

    client.completeFetch(ClientHarness.topology(6, true));

    assertThat(ran).containsExactly("first", "second");
    assertThat(client.metadata.topology().version()).isEqualTo(6);
    assertThat(client.applied).extracting(Topology::version).containsExactly(6L);
    assertThat(client.metadata.color("events").id()).isEqualTo(ClientHarness.EVENTS.id());
    assertThat(client.outbound.flushes).isEqualTo(1);
  }

  @Test
  void shouldKeepItsTopologyWhenTheFetchFailsOrReturnsAnOlderOne() {
    List<String> ran = new ArrayList<>();
    client.metadata.refresh(() -> ran.add("failed"));
    client.completeFetch(null);
    client.metadata.refresh(() -> ran.add("older"));
    client.completeFetch(ClientHarness.topology(4, true));

    assertThat(ran).containsExactly("failed", "older");
    assertThat(client.metadata.topology().version()).isEqualTo(5);
    assertThat(client.applied).isEmpty();
  }

  @Test
  void shouldNameTheKnownColorsForAnUnknownOneOnTheLoop() {
    assertThatThrownBy(() -> client.metadata.color("events"))
        .isInstanceOf(UnknownColorException.class)
        .hasMessage("unknown color 'events'; the cluster has [global, orders]");
    assertThat(client.fetches).isEmpty(); // on the loop it never blocks for a fetch
  }

  @Test
  void shouldListAColorsShardsByIdAcrossItsSubtree() {
    assertThat(client.metadata.shardsOf(0))
        .containsExactly(ClientHarness.ORDERS_A, ClientHarness.ORDERS_B);
  }

  @Test
  void shouldComputeTheShardListsOncePerTopologyAndHandOutTheSameListToEveryAppend() {
    List<Shard> first = client.metadata.shardsOf(ClientHarness.ORDERS.id());

    assertThat(client.metadata.shardsOf(ClientHarness.ORDERS.id())).isSameAs(first);
    assertThatThrownBy(() -> first.add(ClientHarness.EVENTS_A))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(client.metadata.shardsOf(ClientHarness.EVENTS.id())).isEmpty();

    client.metadata.refresh(() -> {});
    client.completeFetch(ClientHarness.topology(6, true));

    assertThat(client.metadata.shardsOf(ClientHarness.EVENTS.id()))
        .containsExactly(ClientHarness.EVENTS_A);
    assertThat(client.metadata.shardsOf(0))
        .containsExactly(ClientHarness.ORDERS_A, ClientHarness.ORDERS_B, ClientHarness.EVENTS_A);
  }

  @Test
  void shouldListForEveryColorOfADeepTreeWhatItsSubtreeHoldsSortedById() {
    // global > a > (b, c), global > d; shards attached at every level, ids out of order.
    List<Color> colors =
        List.of(
            new Color(0, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(1, "a", 0, 0),
            new Color(2, "b", 1, 0),
            new Color(3, "c", 1, 0),
            new Color(4, "d", 0, 0));
    List<Shard> shards =
        List.of(
            new Shard(9, 2, List.of(1)),
            new Shard(3, 3, List.of(2)),
            new Shard(7, 1, List.of(3)),
            new Shard(1, 4, List.of(1)),
            new Shard(5, 0, List.of(2)),
            new Shard(2, 2, List.of(3)));
    Topology tree =
        new Topology(
            7, ClientHarness.topology(1, false).nodes().values().stream().toList(), colors, shards);
    client.metadata.refresh(() -> {});
    client.completeFetch(tree);

    for (Color color : colors) {
      List<Shard> expected = new ArrayList<>(tree.shardsInSubtree(color.id()));
      expected.sort(Comparator.comparingInt(Shard::id));
      assertThat(client.metadata.shardsOf(color.id())).as(color.name()).isEqualTo(expected);
    }
    assertThat(client.metadata.shardsOf(2)).extracting(Shard::id).containsExactly(2, 9);
    assertThat(client.metadata.shardsOf(0)).extracting(Shard::id).containsExactly(1, 2, 3, 5, 7, 9);
    assertThat(client.metadata.shardsOf(42)).as("unknown color").isEmpty();
  }

  /** A loop the test's thread is not on, running each task at once, for the blocking path. */
  private static final class OffLoop implements ClientLoop {
    @Override
    public void execute(Runnable task) {
      task.run();
    }

    @Override
    public void schedule(Runnable task, long delayNs) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean inLoop() {
      return false;
    }
  }

  @Test
  void shouldFetchForAnUnknownColorAtMostOncePerRecheckIntervalOffTheLoop() {
    ManualClock clock = new ManualClock();
    Topology[] served = {ClientHarness.topology(5, false)};
    int[] fetched = {0};
    ClientMetadata metadata =
        new ClientMetadata(
            new Metadata(served[0], ClientHarness.MAX_RECORD_BYTES),
            new OffLoop(),
            clock,
            onLoop -> {
              fetched[0]++;
              onLoop.accept(new Metadata(served[0], ClientHarness.MAX_RECORD_BYTES));
            },
            Duration.ofSeconds(1),
            new RecordingOutbound(),
            topology -> {});

    for (int i = 0; i < 1000; i++) { // a producer sending every record to a misspelled color
      assertThatThrownBy(() -> metadata.color("events")).isInstanceOf(UnknownColorException.class);
    }
    assertThat(fetched[0]).isEqualTo(1);
    assertThatThrownBy(() -> metadata.color("audit")).isInstanceOf(UnknownColorException.class);
    assertThat(fetched[0]).as("another color is fetched for at once").isEqualTo(2);

    served[0] = ClientHarness.topology(6, true); // the color is created
    clock.advance(ClientMetadata.UNKNOWN_COLOR_RECHECK_NS - 1);
    assertThatThrownBy(() -> metadata.color("audit")).isInstanceOf(UnknownColorException.class);
    assertThat(fetched[0]).isEqualTo(2);
    assertThat(metadata.color("events").id()).isEqualTo(ClientHarness.EVENTS.id());
    assertThat(fetched[0]).as("'audit' was the last miss, not 'events'").isEqualTo(3);
  }
}
