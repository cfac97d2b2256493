package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.RangeRequestDescriptor;
import io.flexlog.core.protocol.RangeResponseDescriptor;
import io.flexlog.core.protocol.SequencerHelloDescriptor;
import io.netty.buffer.ByteBuf;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The downward side of the sequencer tree at one node: child sequencer nodes identify themselves
 * (SEQUENCER_HELLO), send range requests (RANGE_REQUEST), and get back ranges (RANGE_RESPONSE) and
 * watermarks (TREE_WATERMARK) on the same FIFO connection.
 *
 * <p>A range request is validated against the tree (its edge must lead from the child to this node,
 * its color must be an ancestor of the edge), deduplicated per child by request id ({@link
 * ChildRegistry}), and handed to the role of its color when this node hosts it, or else to the
 * route that forwards it further up.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ChildLinks {
  private static final Logger LOG = LoggerFactory.getLogger(ChildLinks.class);

  private final int nodeId;
  private final OrderingTables tables;
  private final ChildRegistry children = new ChildRegistry();
  private final Broadcaster broadcaster;

  ChildLinks(int nodeId, OrderingTables tables, Broadcaster broadcaster) {
    this.nodeId = nodeId;
    this.tables = tables;
    this.broadcaster = broadcaster;
  }

  /**
   * SEQUENCER_HELLO: makes the connection the child's current one and writes, down every edge from
   * the child, the watermark of every color above the edge that is known here. A child says HELLO
   * again on the same connection after it applied a newer topology, to get the watermarks of edges
   * that are new to it.
   *
   * @return null on success, or why the connection was refused
   */
  Rejection onHello(PeerLink link, ByteBuf frame) {
    int childNodeId = SequencerHelloDescriptor.childNodeId(frame);
    int incarnation = SequencerHelloDescriptor.incarnation(frame);
    Rejection rejection = children.identify(link, childNodeId, incarnation);
    if (rejection != null) {
      return rejection;
    }
    LOG.info(
        "sequencer node {} (incarnation {}, topology version {}) is a child of node {}"
            + " (topology version {})",
        childNodeId,
        incarnation,
        SequencerHelloDescriptor.topologyVersion(frame),
        nodeId,
        tables.topology().version());
    writeCatchUp(link, childNodeId);
    return null;
  }

  /** After this node applied a newer topology: catch-up watermarks, new edges included. */
  void onTopologyChanged() {
    children.forEachConnected(this::writeCatchUp);
  }

  /**
   * Writes down every edge to the child the watermark of every color above it that is known here.
   * Safe at any point of a connection: a hosted color's watermark follows every range it covers,
   * and a forwarded color's released watermark followed every answer it covers.
   */
  private void writeCatchUp(PeerLink link, int childNodeId) {
    Topology topology = tables.topology();
    for (Routing.Edge edge : tables.routing().edgesTo(childNodeId)) {
      int position = topology.color(edge.colorId()).orElseThrow().parentId();
      for (int colorId : tables.routing().selfAndAncestors(position)) {
        JoinMarks marks = catchUpMarks(position, colorId);
        for (int i = 0; marks != null && i < marks.count(); i++) {
          broadcaster.writeTreeMark(link, colorId, edge.colorId(), marks.version(i), marks.sn(i));
        }
        long watermark = catchUpWatermark(position, colorId);
        if (watermark > 0) {
          broadcaster.writeTreeWatermark(link, colorId, edge.colorId(), watermark);
        }
      }
    }
  }

  private JoinMarks catchUpMarks(int position, int colorId) {
    OrderingTables.HostedColor hosted = tables.hosted(colorId);
    if (hosted != null) {
      return hosted.marks;
    }
    ForwardRoute route = tables.route(position, colorId);
    return route == null ? null : tables.marksVia(colorId, route.exitColorId());
  }

  private long catchUpWatermark(int position, int colorId) {
    OrderingTables.HostedColor hosted = tables.hosted(colorId);
    if (hosted != null) {
      return hosted.role.watermark();
    }
    ForwardRoute route = tables.route(position, colorId);
    return route == null ? 0 : route.releasedWatermark();
  }

  /**
   * RANGE_REQUEST: admits the request once per child incarnation and request id. A request seen
   * before is answered again with its range, or ignored while it is still being ordered.
   *
   * @return null when accepted (or ignored), or why it was refused
   */
  Rejection onRangeRequest(PeerLink link, ByteBuf frame) {
    if (link.kind() != PeerLink.Kind.CHILD) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT, "RANGE_REQUEST before SEQUENCER_HELLO on " + link);
    }
    ChildRegistry.Child child = children.current(link);
    if (child == null) {
      return null; // a connection of the child that a newer one replaced; it re-sends there
    }
    int colorId = RangeRequestDescriptor.colorId(frame);
    int via = RangeRequestDescriptor.viaColorId(frame);
    int count = RangeRequestDescriptor.count(frame);
    Rejection rejection = validate(child.nodeId, colorId, via, count);
    if (rejection != null) {
      return rejection;
    }
    long requestId = FrameDescriptor.requestId(frame);
    long awaitedBefore = child.answeredBelow;
    long known = children.admit(child, requestId, RangeRequestDescriptor.oldestOutstanding(frame));
    if (child.answeredBelow > awaitedBefore) {
      dropAbandoned(child);
    }
    if (known > 0) {
      broadcaster.write(
          link,
          RangeResponseDescriptor.encode(broadcaster.alloc(), requestId, colorId, known, count));
    } else if (known == ChildRegistry.NEW) {
      int position = tables.topology().color(via).orElseThrow().parentId();
      OrderingTables.HostedColor hosted = tables.hosted(colorId);
      if (hosted != null) {
        hosted.role.offerRange(child.nodeId, child.incarnation, requestId, count);
      } else {
        tables
            .route(position, colorId)
            .offerChild(child.nodeId, child.incarnation, requestId, count);
      }
    }
    return null;
  }

  // The child awaits no request below answeredBelow any more: one a role still holds (its gate was
  // closed or its epoch exhausted) was moved to a new id when the child's route re-targeted, and
  // would only burn SNs, which matters most for a role waiting for a new epoch
  // (docs/architecture.md#sequencer-failover).
  private void dropAbandoned(ChildRegistry.Child child) {
    List<OrderingTables.HostedColor> hosted = tables.hostedColors();
    for (int i = 0; i < hosted.size(); i++) {
      hosted.get(i).role.dropAbandonedRanges(child.nodeId, child.incarnation, child.answeredBelow);
    }
  }

  private Rejection validate(int childNodeId, int colorId, int via, int count) {
    Topology topology = tables.topology();
    Color color = topology.color(colorId).orElse(null);
    if (color == null || topology.color(via).isEmpty()) {
      return new Rejection(
          ErrorCode.UNKNOWN_COLOR,
          "unknown color id "
              + (color == null ? colorId : via)
              + " in topology version "
              + topology.version()
              + " of node "
              + nodeId);
    }
    if (!tables.routing().isEdge(via, childNodeId)) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "color "
              + via
              + " is not hosted by sequencer node "
              + childNodeId
              + " under a color of node "
              + nodeId
              + " in topology version "
              + topology.version());
    }
    int position = topology.color(via).orElseThrow().parentId();
    boolean reachable =
        tables.hosted(colorId) != null
            ? topology.isInSubtree(position, colorId)
            : tables.route(position, colorId) != null;
    if (!reachable) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "color "
              + colorId
              + " is not an ancestor of color "
              + via
              + " ordered through node "
              + nodeId);
    }
    if (count > tables.maxRange()) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "range of " + count + " SNs exceeds the largest range " + tables.maxRange());
    }
    return null;
  }

  /**
   * Answers every child request of {@code parts} that has a range; refuses (ERROR with its request
   * id, so the child retries) those that have none because ordering failed.
   */
  void answer(int colorId, ChildParts parts) {
    for (int i = 0; i < parts.size(); i++) {
      int child = parts.node(i);
      int incarnation = parts.incarnation(i);
      long requestId = parts.requestId(i);
      long firstSn = parts.firstSn(i);
      PeerLink link = children.linkOf(child, incarnation);
      if (firstSn > 0) {
        children.answered(child, incarnation, requestId, firstSn);
        if (link != null) {
          broadcaster.write(
              link,
              RangeResponseDescriptor.encode(
                  broadcaster.alloc(), requestId, colorId, firstSn, parts.count(i)));
        }
      } else {
        children.refused(child, incarnation, requestId);
        if (link != null) {
          broadcaster.write(
              link,
              ErrorDescriptor.encode(
                  broadcaster.alloc(),
                  requestId,
                  ErrorCode.INTERNAL,
                  "node " + nodeId + " could not order color " + colorId + "; retry"));
        }
      }
    }
  }

  /** Writes a watermark of {@code colorId} down each edge to the children's current connections. */
  void writeWatermark(int colorId, long watermark, Routing.Edge[] edges) {
    for (Routing.Edge edge : edges) {
      PeerLink link = children.currentLink(edge.childNodeId());
      if (link != null) {
        broadcaster.writeTreeWatermark(link, colorId, edge.colorId(), watermark);
      }
    }
  }

  /** Writes a TOPOLOGY_MARK of {@code colorId} down each edge to the children's connections. */
  void writeMark(int colorId, long topologyVersion, long markSn, Routing.Edge[] edges) {
    for (Routing.Edge edge : edges) {
      PeerLink link = children.currentLink(edge.childNodeId());
      if (link != null) {
        broadcaster.writeTreeMark(link, colorId, edge.colorId(), topologyVersion, markSn);
      }
    }
  }

  void onClosed(PeerLink link) {
    children.onClosed(link);
  }
}
