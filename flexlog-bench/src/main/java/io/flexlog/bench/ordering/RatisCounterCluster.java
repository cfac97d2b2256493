package io.flexlog.bench.ordering;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;

/**
 * Three Apache Ratis peers in this process, on loopback over gRPC (Ratis' default transport), each
 * running a {@link CounterStateMachine} with its own storage directory; Ratis' defaults otherwise
 * (election timeouts, log sync policy), except the log kind chosen by {@link RatisLog}.
 *
 * <p>Threading: {@link #start}, {@link #newClient} and {@link #close} are called by the benchmark's
 * controlling thread; the peers run on Ratis' own threads.
 */
final class RatisCounterCluster implements AutoCloseable {
  /** Peers of the group: the smallest group that survives one failure, as Boki/Scalog deploy. */
  static final int PEERS = 3;

  /** While the group has no leader yet, a client retries at this pace. */
  private static final TimeDuration RETRY_SLEEP = TimeDuration.valueOf(10, TimeUnit.MILLISECONDS);

  private final RaftGroup group;
  private final List<RaftServer> servers;

  private RatisCounterCluster(RaftGroup group, List<RaftServer> servers) {
    this.group = group;
    this.servers = servers;
  }

  /**
   * Starts the peers; they elect a leader on their own.
   *
   * @param storageRoot peer {@code i} keeps its log under {@code storageRoot/peer-i}
   * @throws IOException when a peer cannot start (a port taken since it was picked, unwritable
   *     storage); the peers already started are closed again
   */
  static RatisCounterCluster start(Path storageRoot, RatisLog log) throws IOException {
    int[] ports = LoopbackPorts.pick(PEERS);
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 0; i < PEERS; i++) {
      peers.add(
          RaftPeer.newBuilder()
              .setId("peer-" + i)
              .setAddress(SequencerTree.HOST + ":" + ports[i])
              .build());
    }
    RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
    List<RaftServer> servers = new ArrayList<>();
    try {
      for (int i = 0; i < PEERS; i++) {
        Path storage = Files.createDirectories(storageRoot.resolve("peer-" + i));
        RaftServer server =
            RaftServer.newBuilder()
                .setServerId(peers.get(i).getId())
                .setGroup(group)
                .setStateMachine(new CounterStateMachine())
                .setProperties(serverProperties(ports[i], storage, log))
                .build();
        servers.add(server);
        server.start();
      }
      return new RatisCounterCluster(group, List.copyOf(servers));
    } catch (IOException | RuntimeException e) {
      closeAll(servers);
      throw e;
    }
  }

  private static RaftProperties serverProperties(int port, Path storage, RatisLog log) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    GrpcConfigKeys.Server.setHost(properties, SequencerTree.HOST);
    GrpcConfigKeys.Server.setPort(properties, port);
    RaftServerConfigKeys.setStorageDir(properties, List.of(storage.toFile()));
    RaftServerConfigKeys.Log.setUseMemory(properties, log == RatisLog.MEMORY);
    return properties;
  }

  /**
   * A client of the group that may have {@code outstanding} async requests in flight: Ratis'
   * default limit (100) would otherwise block a larger window.
   */
  RaftClient newClient(int outstanding) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Async.setOutstandingRequestsMax(
        properties,
        Math.max(RaftClientConfigKeys.Async.OUTSTANDING_REQUESTS_MAX_DEFAULT, outstanding));
    RetryPolicy retry = RetryPolicies.retryForeverWithSleep(RETRY_SLEEP);
    return RaftClient.newBuilder()
        .setRaftGroup(group)
        .setProperties(properties)
        .setRetryPolicy(retry)
        .build();
  }

  @Override
  public void close() {
    closeAll(servers);
  }

  private static void closeAll(List<RaftServer> servers) {
    for (RaftServer server : servers) {
      try {
        server.close();
      } catch (IOException e) {
        // Closing a benchmark peer that failed is not worth failing the report for.
      }
    }
  }
}
