package io.flexlog.bench.ordering;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Ratis side: one {@link RatisLoadClient}, each with its own {@code RaftClient}, per load
 * client of the FlexLog side, with the same window and, by default, the same batching.
 */
final class RatisCounterLoad implements OrderingLoad {
  private final List<RatisLoadClient> clients = new ArrayList<>();

  RatisCounterLoad(
      RatisCounterCluster cluster,
      int clientCount,
      int window,
      RatisRequests requests,
      LoadControl control,
      SnObserver observer) {
    for (int i = 0; i < clientCount; i++) {
      clients.add(
          new RatisLoadClient(i, cluster.newClient(window), window, requests, control, observer));
    }
  }

  @Override
  public void prepare(Duration timeout) throws LoadFailure, InterruptedException {
    // One at a time: the first probe waits for the election, the others then find the leader.
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    for (RatisLoadClient client : clients) {
      long remainingNs = Math.max(1, deadlineNs - System.nanoTime());
      client.probe(Duration.ofNanos(remainingNs));
    }
  }

  @Override
  public void start() {
    for (RatisLoadClient client : clients) {
      client.start();
    }
  }

  @Override
  public List<ClientStats> snapshot(Duration timeout) {
    List<ClientStats> copies = new ArrayList<>(clients.size());
    for (RatisLoadClient client : clients) {
      copies.add(client.snapshot());
    }
    return copies;
  }

  @Override
  public void close() {
    for (RatisLoadClient client : clients) {
      client.close();
    }
  }
}
