package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.RangeRequestDescriptor;
import io.flexlog.core.protocol.RangeResponseDescriptor;
import io.flexlog.core.protocol.SequencerHelloDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.TreeWatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upward side of the sequencer tree at one node: range requests go up to parent nodes, ranges
 * and watermarks come back on the same connection.
 *
 * <p>Connections break. Every request without an answer stays in its {@link ParentSession} and is
 * re-sent, under its request id, on the next connection to that parent; the parent answers an id at
 * most once with a fresh range (see {@link ChildRegistry}). What this means when the parent
 * restarted: the new parent process has forgotten every id, so a re-sent request gets a fresh range
 * in the parent's new, larger epoch, and whatever range the old process may have assigned to it
 * before crashing is never used (holes, which readers treat as such). Either way each request is
 * answered exactly once here, and the answer's tokens and child requests each get exactly one SN. A
 * request that was sent on a broken connection holds its route's watermarks back until it is
 * answered (see {@link UpwardBatch}).
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ParentLinks {
  private static final Logger LOG = LoggerFactory.getLogger(ParentLinks.class);

  /** How long a refused range request waits before it is sent again. */
  static final long RETRY_DELAY_MS = 100;

  private final int nodeId;
  private final int incarnation;
  private final OrderingTables tables;
  private final Broadcaster broadcaster;
  private final ChildLinks childLinks;
  private final NodeRuntime runtime;
  private final Runnable endOfTurn;
  private final Int2ObjectHashMap<ParentSession> sessions = new Int2ObjectHashMap<>();

  /**
   * @param endOfTurn asks for the end of the current turn (which flushes what was written)
   */
  ParentLinks(
      int nodeId,
      int incarnation,
      OrderingTables tables,
      Broadcaster broadcaster,
      ChildLinks childLinks,
      NodeRuntime runtime,
      Runnable endOfTurn) {
    this.nodeId = nodeId;
    this.incarnation = incarnation;
    this.tables = tables;
    this.broadcaster = broadcaster;
    this.childLinks = childLinks;
    this.runtime = runtime;
    this.endOfTurn = endOfTurn;
  }

  /** Opens a session, and asks the runtime for a connection, to every parent of the topology. */
  void install() {
    for (int parentNodeId : tables.routing().parentNodes()) {
      if (sessions.get(parentNodeId) == null) {
        sessions.put(parentNodeId, new ParentSession(parentNodeId));
        runtime.connectParent(parentNodeId);
      }
    }
  }

  /**
   * A connection to a parent is up: say who we are, then re-send every request that has no answer
   * yet, oldest first.
   */
  PeerLink onConnected(int parentNodeId, Outbound out) {
    PeerLink link = PeerLink.toParent(out, parentNodeId);
    ParentSession session = sessions.get(parentNodeId);
    if (session == null) {
      LOG.warn("node {} connected to node {}, which is not its parent", nodeId, parentNodeId);
      return link;
    }
    session.link(link);
    broadcaster.write(
        link,
        SequencerHelloDescriptor.encode(
            broadcaster.alloc(), nodeId, incarnation, tables.topology().version()));
    List<UpwardBatch> pending = session.inRequestOrder();
    for (UpwardBatch batch : pending) {
      writeRequest(session, batch);
    }
    LOG.info(
        "sequencer node {} connected to parent node {}; {} range requests re-sent",
        nodeId,
        parentNodeId,
        pending.size());
    endOfTurn.run();
    return link;
  }

  /**
   * After this node applied a newer topology: says HELLO again on every connected parent link, so
   * that each parent sends the watermarks of edges that are new to this node.
   */
  void onTopologyChanged() {
    for (ParentSession session : sessions.values()) {
      if (session.link() != null) {
        broadcaster.write(
            session.link(),
            SequencerHelloDescriptor.encode(
                broadcaster.alloc(), nodeId, incarnation, tables.topology().version()));
        endOfTurn.run();
      }
    }
  }

  /**
   * A connection to a parent broke: its unanswered requests are re-sent on the next one; until
   * their answers arrive, their routes hold watermarks back.
   */
  void onClosed(PeerLink link) {
    ParentSession session = sessions.get(link.peerNodeId());
    if (session == null || session.link() != link) {
      return;
    }
    session.link(null);
    for (UpwardBatch batch : session.all()) {
      if (batch.sent) {
        batch.sent = false;
        if (!batch.replayed) {
          batch.replayed = true;
          batch.route.replayStarted();
        }
      }
    }
  }

  /** A frame from a parent. Frames of a connection that was replaced are ignored. */
  void onFrame(PeerLink link, ByteBuf frame) {
    ParentSession session = sessions.get(link.peerNodeId());
    if (session == null || session.link() != link) {
      return;
    }
    byte type = FrameDescriptor.type(frame);
    switch (type) {
      case MessageType.RANGE_RESPONSE -> onRangeResponse(session, frame);
      case MessageType.TREE_WATERMARK -> onTreeWatermark(session, frame);
      case MessageType.TOPOLOGY_MARK -> onTopologyMark(session, frame);
      case MessageType.ERROR -> onError(session, frame);
      default ->
          throw new ProtocolException(
              "a parent sequencer does not send " + MessageType.name(type) + " frames");
    }
  }

  private void onRangeResponse(ParentSession session, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    UpwardBatch batch = session.outstanding(requestId);
    if (batch == null) {
      LOG.warn(
          "node {}: parent node {} answered range request {}, which is not outstanding",
          nodeId,
          session.parentNodeId,
          requestId);
      return;
    }
    ForwardRoute route = batch.route;
    int colorId = RangeResponseDescriptor.colorId(frame);
    int count = RangeResponseDescriptor.count(frame);
    if (colorId != route.colorId() || count != batch.count()) {
      throw new ProtocolException(
          "range response "
              + requestId
              + " gives "
              + count
              + " SNs of color "
              + colorId
              + " to a request for "
              + batch.count()
              + " SNs of color "
              + route.colorId());
    }
    session.complete(requestId);
    route.onAnswer(batch, RangeResponseDescriptor.firstSn(frame));
    broadcaster.writeResponses(colorId, route, batch.tokens);
    childLinks.answer(colorId, batch.children);
    route.meters().recordAnswered(runtime.nanoTime() - batch.sentAtNanos);
    if (batch.replayed) {
      route.replayAnswered();
    }
    route.recycle(batch);
    endOfTurn.run();
  }

  private void onTreeWatermark(ParentSession session, ByteBuf frame) {
    ForwardRoute route =
        tables.routeVia(
            TreeWatermarkDescriptor.colorId(frame), TreeWatermarkDescriptor.viaColorId(frame));
    if (route == null || route.parentNodeId() != session.parentNodeId) {
      LOG.debug("node {}: ignoring a watermark for no route of it", nodeId);
      return;
    }
    route.onUpstreamWatermark(TreeWatermarkDescriptor.watermark(frame));
    if (route.hasReleasableWatermark()) {
      endOfTurn.run();
    }
  }

  /**
   * A join mark of the route's color from the parent: passed on at once to the route's replicas and
   * child edges. Nothing the route writes later can precede it, and the parent sent it before any
   * watermark that reaches the mark, so every replica gets it before such a watermark too.
   */
  private void onTopologyMark(ParentSession session, ByteBuf frame) {
    int colorId = TopologyMarkDescriptor.colorId(frame);
    int viaColorId = TopologyMarkDescriptor.scopeId(frame);
    long version = TopologyMarkDescriptor.topologyVersion(frame);
    long markSn = TopologyMarkDescriptor.markSn(frame);
    if (!tables.marksVia(colorId, viaColorId).add(version, markSn, new int[0])) {
      return; // passed down already (a catch-up after a reconnect repeats the marks)
    }
    ForwardRoute route = tables.routeVia(colorId, viaColorId);
    if (route == null || route.parentNodeId() != session.parentNodeId) {
      // Kept: replicas of shards that join the route later get it in their catch-up.
      LOG.debug("node {}: keeping a topology mark for a route it does not have yet", nodeId);
      return;
    }
    broadcaster.writeMark(colorId, version, markSn, route, route.slotsBefore(version));
    childLinks.writeMark(colorId, version, markSn, route.edges());
    endOfTurn.run(); // flushes
  }

  // The parent refused a request (topology not there yet, or it failed to order): send it again
  // later under the same id; it was not ordered, so no watermark needs to wait for it.
  private void onError(ParentSession session, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    LOG.warn(
        "node {}: parent node {} refused range request {}: {} {}; retrying in {} ms",
        nodeId,
        session.parentNodeId,
        requestId,
        ErrorDescriptor.code(frame),
        ErrorDescriptor.message(frame),
        RETRY_DELAY_MS);
    UpwardBatch batch = session.outstanding(requestId);
    if (batch != null && batch.sent) {
      batch.sent = false;
      runtime.schedule(() -> retry(session, requestId), RETRY_DELAY_MS);
    }
  }

  private void retry(ParentSession session, long requestId) {
    UpwardBatch batch = session.outstanding(requestId);
    if (session.link() != null && batch != null && !batch.sent) {
      writeRequest(session, batch);
      endOfTurn.run();
    }
  }

  /**
   * The parent role of {@code route} failed over ({@link ForwardRoute#retarget}): its requests that
   * {@code formerParent} has not answered move to the session of the new parent under new request
   * ids, oldest first, and are sent there at once if connected. The new parent has never seen them,
   * so it gives them fresh SNs, larger than every SN of the old epoch; an answer the former parent
   * still sends for the old ids finds nothing outstanding and is dropped, and its watermarks no
   * longer reach the route. A range the former parent assigned without delivering stays unused:
   * holes no replica holds (docs/architecture.md#sequencer-failover).
   */
  void retarget(ForwardRoute route, int formerParent) {
    List<UpwardBatch> moved = withdrawFrom(sessions.get(formerParent), route);
    ParentSession session = sessions.get(route.parentNodeId());
    for (UpwardBatch batch : moved) {
      batch.sent = false;
      session.register(batch);
      if (session.link() != null) {
        writeRequest(session, batch);
      }
    }
    LOG.info(
        "node {}: the parent role of {} {} node {}; {} range requests re-sent",
        nodeId,
        route,
        // The same node in a larger epoch: its first lease, a restart, or a new epoch it took.
        formerParent == route.parentNodeId() ? "is in a new role epoch on" : "failed over from",
        formerParent,
        moved.size());
    if (!moved.isEmpty()) {
      endOfTurn.run();
    }
  }

  /**
   * Takes every request of a route this node no longer has out of its session: those the parent has
   * not answered, oldest first, then this turn's unsent ones. Answers to them are dropped from now
   * on; the caller hands their tokens and child requests on.
   */
  List<UpwardBatch> withdraw(ForwardRoute route) {
    List<UpwardBatch> batches = withdrawFrom(sessions.get(route.parentNodeId()), route);
    List<UpwardBatch> unsent = route.takeBatches();
    batches.addAll(unsent);
    unsent.clear();
    return batches;
  }

  private static List<UpwardBatch> withdrawFrom(ParentSession session, ForwardRoute route) {
    List<UpwardBatch> batches = new ArrayList<>();
    if (session == null) {
      return batches;
    }
    for (UpwardBatch batch : session.inRequestOrder()) {
      if (batch.route == route) {
        session.complete(batch.requestId);
        batches.add(batch);
      }
    }
    return batches;
  }

  /** Sends the route's batches of this turn up, or keeps them for the next connection. */
  void sendUpward(ForwardRoute route) {
    ParentSession session = sessions.get(route.parentNodeId());
    List<UpwardBatch> batches = route.takeBatches();
    for (int i = 0; i < batches.size(); i++) {
      UpwardBatch batch = batches.get(i);
      session.register(batch);
      batch.sentAtNanos = runtime.nanoTime();
      route.meters().recordSent(batch.requests());
      if (session.link() != null) {
        writeRequest(session, batch);
      }
    }
    batches.clear();
  }

  private void writeRequest(ParentSession session, UpwardBatch batch) {
    ForwardRoute route = batch.route;
    broadcaster.write(
        session.link(),
        RangeRequestDescriptor.encode(
            broadcaster.alloc(),
            batch.requestId,
            route.colorId(),
            route.exitColorId(),
            (int) batch.count(),
            session.oldestOutstanding()));
    batch.sent = true;
  }
}
