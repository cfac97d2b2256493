package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
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
}
