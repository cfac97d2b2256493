package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.WelcomeDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordering state machine of one sequencer node
 * (docs/architecture.md#ordering-in-the-sequencer-tree): the roles of its hosted colors, the routes
 * that forward other colors up the sequencer tree, its replicas, its child and parent nodes, and
 * the turn-based batching. It knows nothing of sockets: connections are {@link Outbound}s, the
 * event loop is a {@link NodeRuntime}, so the deterministic simulation drives the very same code as
 * a running {@link io.flexlog.sequencer.SequencerNode}.
 *
 * <p>An order request for color X from a replica of shard S: if this node hosts X, its role
 * deduplicates the tokens and assigns SNs at the end of the turn. Otherwise the route from S's
 * color to X deduplicates them (every replica of S sends the same tokens, and only this node sees
 * them all) and at the end of the turn sends one range request for the new tokens of the turn,
 * together with the range requests of child nodes on the same route, to the parent node. Answers
 * flow back down the same connections; each node splits the range in order over what it merged, and
 * the node of S broadcasts ORDER_RESPONSE(token, sn) to every replica of S.
 *
 * <p>Batching: the first request of an event-loop turn schedules {@link #endTurn} on the runtime,
 * which runs it after every ready connection of the turn was read, so all requests that arrived
 * together form one batch per color. {@link #endTurn} assigns the hosted roles' batches and
 * publishes them (responses, then one watermark per color), sends the routes' range requests up,
 * releases watermarks that came down, and flushes each touched connection once.
 *
 * <p>Threading contract: every method must be called on the thread that owns the runtime (the
 * node's single event loop). That confinement is why no state here is locked.
 */
public final class OrderingService {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  private final int nodeId;
  private final int incarnation;
  private final NodeRuntime runtime;
  private final SequencerMetrics metrics;
  private final OrderingTables tables;
  private final ReplicaRegistry registry;
  private final Broadcaster broadcaster;
  private final ChildLinks childLinks;
  private final ParentLinks parentLinks;
  private final CatchUp catchUp;
  private final TopologyInstall topologyInstall;
  private final JoinMarkTaker markTaker;
  private final Runnable endTurnTask = this::endTurn;
  private boolean turnScheduled;

  /** A batch whose role may not issue yet is looked at again after this long. */
  static final long GATE_RETRY_MS = 5;

  private boolean gateRetryScheduled;

  // Scratch for duplicate answers, reused so that retries do not allocate.
  private long[] duplicateSns = new long[16];

  /** Order requests addressed to a hosted role in an earlier epoch, dropped. */
  private long staleRequests;

  private int[] duplicateIndexes = new int[16];

  /**
   * @param incarnation this process's identity towards parent nodes: its epoch at start
   * @param epochs the node's durable epochs; new roles start in the current one
   * @param maxCounter the last counter of an epoch ({@link Sn#MAX_COUNTER} in production)
   * @param observer told about every SN issued by a hosted role, or null
   */
  public OrderingService(
      int nodeId,
      int incarnation,
      Topology topology,
      int dedupWindow,
      long maxCounter,
      NodeEpochs epochs,
      SequencerMetrics metrics,
      ByteBufAllocator alloc,
      NodeRuntime runtime,
      IssueObserver observer) {
    this.nodeId = nodeId;
    this.incarnation = incarnation;
    this.runtime = runtime;
    this.metrics = metrics;
    this.tables = new OrderingTables(nodeId, dedupWindow, maxCounter, epochs, metrics, observer);
    tables.install(topology);
    this.registry = new ReplicaRegistry(topology);
    this.broadcaster = new Broadcaster(alloc, registry, tables::entersHere);
    this.childLinks = new ChildLinks(nodeId, tables, broadcaster);
    this.parentLinks =
        new ParentLinks(
            nodeId, incarnation, tables, broadcaster, childLinks, runtime, this::scheduleEndOfTurn);
    this.catchUp = new CatchUp(tables, broadcaster);
    this.markTaker = new JoinMarkTaker(incarnation, tables, broadcaster, childLinks);
    tables.onUncheckedMarks(markTaker::takeLost);
    this.topologyInstall =
        new TopologyInstall(
            nodeId, tables, registry, markTaker, childLinks, parentLinks, this::scheduleEndOfTurn);
  }

  /**
   * Lets {@code gate} decide, each turn, whether a hosted role may issue SNs (leases of the
   * metadata quorum; docs/architecture.md, "Sequencer failover"). Call before {@link #start}.
   */
  public void issueGate(IssueGate gate) {
    tables.gate(gate);
  }

  /**
   * Keeps the hosted roles' join marks in {@code store} (docs/architecture.md#join-marks) and loads
   * those saved there by earlier processes, so that a replica that was down when a mark was taken
   * still gets it at its catch-up, and takes a mark for the shards of a hosted role's subtree whose
   * mark its former process took but never saved ({@link JoinMarkTaker#takeLost}). Call before
   * {@link #start}, after {@link #issueGate}; without it marks live as long as the process.
   */
  public void joinMarkStore(JoinMarkStore store) {
    tables.markStore(store);
    for (OrderingTables.HostedColor hosted : tables.hostedColors()) {
      markTaker.takeLost(hosted);
    }
  }

  /** Asks the runtime for connections to the parent nodes. Call once, on the owning thread. */
  public void start() {
    parentLinks.install();
  }

  public Topology topology() {
    return tables.topology();
  }

  // ---------------------------------------------------------------- inbound connections

  /** A well-formed request was refused with an ERROR frame; counted by code. */
  void onRefused(Rejection rejection) {
    metrics.recordRefused(rejection.code());
  }

  /** A peer (replica or child node) connected; the returned link identifies it from now on. */
  public PeerLink onConnected(Outbound out) {
    return PeerLink.inbound(out);
  }

  /**
   * HELLO: registers the connection for the named shards, answers WELCOME with this process's
   * incarnation and writes the current watermark of every color ordered or forwarded here whose
   * requests those shards send here.
   *
   * @return null on success, or why the HELLO was refused (nothing is registered then)
   */
  Rejection onHello(PeerLink link, ByteBuf frame) {
    int[] shardIds = HelloDescriptor.shardIds(frame);
    Rejection rejection = registry.register(link, HelloDescriptor.replicaNodeId(frame), shardIds);
    if (rejection == null) {
      broadcaster.write(link, WelcomeDescriptor.encode(broadcaster.alloc(), nodeId, incarnation));
      catchUp.write(link, shardIds);
      scheduleEndOfTurn();
    }
    return rejection;
  }

  /**
   * ORDER_REQUEST: deduplicates the tokens, batches the new ones for this turn and answers tokens
   * that already have an SN to this connection only. A connection that sends no HELLO is registered
   * implicitly by the request's replica and shard ids.
   *
   * @return null when accepted, or why the request was refused (no token was considered then)
   */
  Rejection onOrderRequest(PeerLink link, ByteBuf frame) {
    if (link.kind() == PeerLink.Kind.CHILD) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT, "ORDER_REQUEST from " + link + ", which is not a replica");
    }
    int colorId = OrderRequestDescriptor.colorId(frame);
    int shardId = OrderRequestDescriptor.shardId(frame);
    ShardTargets targets = registry.targets(shardId);
    OrderingTables.HostedColor hosted = tables.hosted(colorId);
    TokenOrderer orderer;
    int slot;
    if (hosted != null) {
      if (targets == null) {
        return new Rejection(ErrorCode.UNKNOWN_SHARD, "unknown shard id " + shardId);
      }
      orderer = hosted.role;
      slot = hosted.role.shardSlot(shardId);
      if (slot < 0) {
        return OrderRefusals.outsideSubtree(tables.topology(), shardId, colorId);
      }
      if (tables.hosted(targets.shard().colorId()) == null
          && OrderRequestDescriptor.roleEpoch(frame) > 0) {
        // Addressed to the leader of the shard's color, which this node is not (the replica's
        // topology is older or newer than this node's): ordered here, a token the shard's real
        // leader orders too would get two SNs.
        return OrderRefusals.notShardLeader(tables.topology(), nodeId, targets);
      }
    } else {
      ForwardRoute route =
          targets == null ? null : tables.route(targets.shard().colorId(), colorId);
      if (route == null) {
        return OrderRefusals.unroutable(tables.topology(), nodeId, colorId, shardId, targets);
      }
      orderer = route;
      slot = route.shardSlot(shardId);
    }
    // The request names the role epoch of the shard's color: the role it is addressed to.
    OrderingTables.HostedColor shardRole = tables.hosted(targets.shard().colorId());
    if (shardRole != null && shardRole.role.isStale(OrderRequestDescriptor.roleEpoch(frame))) {
      dropStale(link, frame);
      return null;
    }
    if (link.isUnidentified()) {
      int[] shard = {shardId};
      Rejection rejection =
          registry.register(link, OrderRequestDescriptor.replicaNodeId(frame), shard);
      if (rejection != null) {
        return rejection;
      }
      if (catchUp.write(link, shard)) {
        scheduleEndOfTurn();
      }
    }
    offerTokens(link, orderer, slot, frame);
    return null;
  }

  // An order request addressed to this role in an earlier epoch: none of its tokens is considered.
  private void dropStale(PeerLink link, ByteBuf frame) {
    staleRequests++;
    if (Long.bitCount(staleRequests) == 1) {
      LOG.info(
          "sequencer {}: dropped an ORDER_REQUEST of {} token(s) for shard {} from {}, addressed to"
              + " role epoch {} of the shard's color, which this node leads in a later epoch (color"
              + " id {} requested; {} dropped so far)",
          nodeId,
          OrderRequestDescriptor.count(frame),
          OrderRequestDescriptor.shardId(frame),
          link,
          OrderRequestDescriptor.roleEpoch(frame),
          OrderRequestDescriptor.colorId(frame),
          staleRequests);
    }
  }

  private void offerTokens(PeerLink link, TokenOrderer orderer, int slot, ByteBuf frame) {
    int count = OrderRequestDescriptor.count(frame);
    int duplicates = 0;
    boolean added = false;
    for (int i = 0; i < count; i++) {
      long hi = OrderRequestDescriptor.tokenSession(frame, i);
      long lo = OrderRequestDescriptor.tokenSequence(frame, i);
      long result = orderer.offer(slot, hi, lo);
      if (result > 0) {
        if (duplicates == duplicateSns.length) {
          duplicateSns = Arrays.copyOf(duplicateSns, duplicates * 2);
          duplicateIndexes = Arrays.copyOf(duplicateIndexes, duplicates * 2);
        }
        duplicateSns[duplicates] = result;
        duplicateIndexes[duplicates++] = i;
      } else if (result == OrderingRole.ACCEPTED) {
        added = true;
      }
    }
    if (duplicates > 0) {
      answerDuplicates(link, orderer.colorId(), frame, duplicates);
    }
    if (added || duplicates > 0) {
      scheduleEndOfTurn();
    }
  }

  // Already-ordered tokens: only the asking replica lacks the answer (it reconnected or retried).
  private void answerDuplicates(PeerLink link, int colorId, ByteBuf request, int duplicates) {
    int shardId = OrderRequestDescriptor.shardId(request);
    ByteBuf response =
        OrderResponseDescriptor.encodeHeader(broadcaster.alloc(), colorId, shardId, duplicates);
    for (int d = 0; d < duplicates; d++) {
      int i = duplicateIndexes[d];
      OrderResponseDescriptor.writeEntry(
          response,
          OrderRequestDescriptor.tokenSession(request, i),
          OrderRequestDescriptor.tokenSequence(request, i),
          duplicateSns[d]);
    }
    broadcaster.write(link, response);
  }

  /** SEQUENCER_HELLO from a child node; see {@link ChildLinks#onHello}. */
  Rejection onSequencerHello(PeerLink link, ByteBuf frame) {
    Rejection rejection = childLinks.onHello(link, frame);
    scheduleEndOfTurn();
    return rejection;
  }

  /** RANGE_REQUEST from a child node; see {@link ChildLinks#onRangeRequest}. */
  /**
   * The tail of a color whose role this node hosts: the last SN the role issued, or {@code epoch.0}
   * before the first of its epoch; -1 when the role is not here
   * (docs/architecture.md#head-and-tail).
   */
  long tailOf(int colorId) {
    OrderingTables.HostedColor hosted = tables.hosted(colorId);
    return hosted == null ? -1 : hosted.role.watermark();
  }

  Rejection onRangeRequest(PeerLink link, ByteBuf frame) {
    Rejection rejection = childLinks.onRangeRequest(link, frame);
    scheduleEndOfTurn();
    return rejection;
  }

  /** Forgets a closed inbound connection. */
  public void onDisconnect(PeerLink link) {
    if (link.kind() == PeerLink.Kind.CHILD) {
      childLinks.onClosed(link);
    } else {
      registry.unregister(link);
    }
  }

  // ---------------------------------------------------------------- parent connections

  /** The runtime's connection to parent node {@code parentNodeId} is up. */
  public PeerLink onParentConnected(int parentNodeId, Outbound out) {
    return parentLinks.onConnected(parentNodeId, out);
  }

  /**
   * A frame from a parent node.
   *
   * @throws io.flexlog.core.error.ProtocolException when the parent breaks the protocol; the caller
   *     closes the connection
   */
  public void onParentFrame(PeerLink link, ByteBuf frame) {
    parentLinks.onFrame(link, frame);
  }

  public void onParentClosed(PeerLink link) {
    parentLinks.onClosed(link);
  }

  // ---------------------------------------------------------------- the turn

  private void retryGatedLater() {
    if (!gateRetryScheduled) {
      gateRetryScheduled = true;
      runtime.schedule(
          () -> {
            gateRetryScheduled = false;
            scheduleEndOfTurn();
          },
          GATE_RETRY_MS);
    }
  }

  private void scheduleEndOfTurn() {
    if (!turnScheduled) {
      turnScheduled = true;
      runtime.execute(endTurnTask);
    }
  }

  /**
   * Ends the turn: per hosted color, assigns SNs to the batch and publishes it (responses, then the
   * watermark); sends every route's range requests up; releases the watermarks that came down;
   * finally flushes every connection written to. Also called on close to publish whatever is still
   * batched.
   */
  public void endTurn() {
    turnScheduled = false;
    List<OrderingTables.HostedColor> hostedColors = tables.hostedColors();
    for (int i = 0; i < hostedColors.size(); i++) {
      OrderingTables.HostedColor hosted = hostedColors.get(i);
      if (hosted.role.hasWork()) {
        publishBatch(hosted);
      }
    }
    List<ForwardRoute> routes = tables.routes();
    for (int i = 0; i < routes.size(); i++) {
      ForwardRoute route = routes.get(i);
      if (route.hasBatch()) {
        parentLinks.sendUpward(route);
      }
      if (route.hasReleasableWatermark()) {
        long watermark = route.releaseWatermark();
        broadcaster.writeWatermark(route.colorId(), watermark, route);
        childLinks.writeWatermark(route.colorId(), watermark, route.edges());
      }
    }
    broadcaster.flushDirty();
  }

  private void publishBatch(OrderingTables.HostedColor hosted) {
    OrderingRole role = hosted.role;
    if (!role.mayIssue()) {
      // No lease (not yet, or lapsed): the batch waits, and is looked at again shortly. If the
      // role moves to another node, the batch leaves with it and the replicas re-send there.
      retryGatedLater();
      return;
    }
    boolean failed = false;
    boolean complete = true;
    try {
      // Incomplete when a leased epoch ran out: the rest waits for the next epoch, which the role
      // asked its gate for (docs/architecture.md, "Sequencer failover").
      complete = role.assignBatch();
    } catch (RuntimeException e) {
      // Only an epoch that cannot be made durable gets here; SNs already assigned are still
      // published so that the watermark never covers an SN its replicas were not told about.
      LOG.error(
          "color {}: cannot assign SNs, dropping the rest of the batch", describe(role.color()), e);
      failed = true;
    }
    broadcaster.writeResponses(role.colorId(), role, role.batch());
    childLinks.answer(role.colorId(), role.ranges());
    long watermark = role.watermark();
    broadcaster.writeWatermark(role.colorId(), watermark, role);
    childLinks.writeWatermark(role.colorId(), watermark, hosted.edges);
    hosted.meters.recordBatch(assignedCount(role));
    if (failed) {
      role.abortBatch();
    } else {
      role.clearBatch();
    }
    if (!complete) {
      retryGatedLater();
    }
  }

  private static int assignedCount(OrderingRole role) {
    int assigned = 0;
    ColorBatch batch = role.batch();
    for (int i = 0; i < batch.size(); i++) {
      if (batch.sn(i) > 0) {
        assigned++;
      }
    }
    ChildParts ranges = role.ranges();
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.firstSn(i) > 0) {
        assigned += ranges.count(i);
      }
    }
    return assigned;
  }

  // ---------------------------------------------------------------- topology

  /**
   * Applies a newer topology: roles for newly hosted colors, routes for new colors and shards,
   * connections to new parents. Ignores versions not newer than the current one, and refuses (with
   * an error in the log) one that moves existing colors or shards. See {@link TopologyInstall}.
   */
  public void updateTopology(Topology newer) {
    topologyInstall.apply(newer);
  }

  /** A color as log lines and errors name it: {@code id ('name')}. */
  static String describe(Color color) {
    return color.id() + " ('" + color.name() + "')";
  }

  /** The current watermark of every hosted color, for logs: {@code name=epoch.counter}. */
  public List<String> describeWatermarks() {
    List<String> out = new ArrayList<>();
    for (OrderingTables.HostedColor hosted : tables.hostedColors()) {
      out.add(hosted.role.color().name() + "=" + Sn.describe(hosted.role.watermark()));
    }
    return out;
  }
}
