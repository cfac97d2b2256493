package io.flexlog.client.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The client's protocol roles wired to each other and to their edges: an {@link Outbound}, a {@link
 * ClientLoop}, a {@link NanoClock} and a metadata {@link ClientMetadata.Fetcher}. {@link
 * ClientCore} builds one over Netty; the deterministic simulation builds one over its in-memory
 * network and virtual time, so both run the same wiring.
 *
 * <p>Threading: the roles run on the loop; see each role.
 */
final class ClientRoles {
  final ClientMetadata metadata;
  final Appends appends;
  final BatchAppends batches;
  final AtomicGroups groups;
  final Reads reads;
  final Trims trims;
  final Tails tails;
  final Subscriptions subscriptions;
  final InboundDispatcher inbound;
  private final Outbound outbound;
  private final NanoClock clock;
  private final ReconnectBackoff reconnects;

  /**
   * @param session the random session id of this client's append tokens
   * @param onTopologyApplied told on the loop of every newer topology applied
   */
  ClientRoles(
      FlexLogConfig config,
      Metadata initial,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      ClientMetadata.Fetcher fetcher,
      Consumer<Topology> onTopologyApplied,
      long session) {
    this.outbound = outbound;
    this.clock = clock;
    Tokens tokens = new Tokens(session);
    long requestTimeoutNs = config.requestTimeout().toNanos();
    long deliveryTimeoutNs = config.deliveryTimeout().toNanos();
    this.metadata =
        new ClientMetadata(
            initial, loop, clock, fetcher, config.connectTimeout(), outbound, onTopologyApplied);
    this.appends =
        new Appends(metadata, outbound, loop, clock, tokens, requestTimeoutNs, deliveryTimeoutNs);
    this.batches =
        new BatchAppends(
            metadata, outbound, loop, clock, tokens, requestTimeoutNs, deliveryTimeoutNs);
    this.groups =
        new AtomicGroups(
            metadata,
            outbound,
            loop,
            clock,
            tokens,
            config.atomicBrokerColor(),
            requestTimeoutNs,
            deliveryTimeoutNs);
    this.tails = new Tails(metadata, outbound, loop, clock, requestTimeoutNs);
    this.reads = new Reads(metadata, outbound, loop, clock, config.readTimeout().toNanos(), tails);
    this.trims = new Trims(metadata, outbound, loop, clock, requestTimeoutNs);
    this.subscriptions =
        new Subscriptions(
            metadata,
            outbound,
            loop,
            clock,
            config.subscribeWindowBytes(),
            requestTimeoutNs,
            config.subscribeLivenessTimeout().toNanos(),
            new Random(session));
    this.reconnects = new ReconnectBackoff(requestTimeoutNs, new Random(~session));
    this.inbound =
        new InboundDispatcher(appends, batches, groups, reads, trims, subscriptions, tails);
  }

  /** How often deadlines are checked: a tenth of the shortest timeout, within 1 to 100 ms. */
  static long tickMs(FlexLogConfig config) {
    long shortestMs = Math.min(config.requestTimeout().toMillis(), config.readTimeout().toMillis());
    return Math.max(1, Math.min(100, shortestMs / 10));
  }

  /** The timer's turn: every role checks its deadlines at the same instant, then one flush. */
  void checkDeadlines() {
    long nowNs = clock.nanoTime();
    appends.onTick(nowNs);
    batches.onTick(nowNs);
    groups.onTick(nowNs);
    subscriptions.onTick(nowNs);
    reads.onTick(nowNs);
    trims.onTick(nowNs);
    tails.onTick(nowNs);
    outbound.flush();
  }

  /**
   * A connection to {@code nodeId} failed or closed: reads and subscriptions turn to another
   * replica at once, appends waiting for that replica are sent to it again after the reconnect
   * backoff.
   */
  void onConnectionLost(int nodeId) {
    subscriptions.onConnectionLost(nodeId);
    reads.onConnectionLost(nodeId);
    long resendAtNs = reconnects.onLost(nodeId, clock.nanoTime());
    appends.onConnectionLost(nodeId, resendAtNs);
    batches.onConnectionLost(nodeId, resendAtNs);
  }

  /** Fails everything in flight with {@code error}. */
  void failAll(FlexLogException error) {
    appends.failAll(error);
    batches.failAll(error);
    groups.failAll(error);
    reads.failAll(error);
    trims.failAll(error);
    tails.failAll(error);
    subscriptions.failAll(error);
  }
}
