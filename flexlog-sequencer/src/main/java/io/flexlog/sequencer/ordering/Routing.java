package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How order requests climb the sequencer tree from one node, computed from a {@link Topology}
 * (docs/architecture.md#append, plan's shared contract). Immutable; rebuilt on every topology
 * change.
 *
 * <p>Terms. A <em>position</em> is a color hosted on this node at which a request starts climbing:
 * the color of a local shard, or the parent of a child node's color (a request that arrived over
 * the <em>edge</em> from that child color). A request for color X at a position is answered by the
 * local role when X is hosted here. Otherwise it climbs the hosted colors above the position to the
 * topmost one, its <em>exit</em> color T, and leaves over the edge T to the node hosting T's
 * parent. A {@link Route} is such a pair (X, T): every request of one route goes to the same parent
 * node in the same upward batch, and watermarks of X from that parent reach exactly the route's
 * local shards and child edges.
 *
 * <p>Any placement of colors on nodes works, including ones where the path of a request leaves a
 * node and comes back to it higher up; each node only needs its own routes.
 */
final class Routing {
  /**
   * A forwarding route: requests for {@code colorId} leaving over the edge {@code exitColorId} to
   * {@code parentNodeId}, the leader of the exit's parent color in role epoch {@code parentEpoch}
   * (0 without failover).
   */
  record Route(
      int colorId,
      int exitColorId,
      int parentNodeId,
      int parentEpoch,
      int[] shardIds,
      List<Edge> childEdges) {
    long key() {
      return key(colorId, exitColorId);
    }

    static long key(int colorId, int exitColorId) {
      return ((long) colorId << 32) | (exitColorId & 0xFFFF_FFFFL);
    }
  }

  /**
   * An edge of the color tree that crosses from this node down to a child node: {@code colorId} is
   * hosted by {@code childNodeId}, its parent by this node.
   */
  record Edge(int colorId, int childNodeId) {}

  private final Topology topology;
  private final int nodeId;
  private final Map<Long, Route> routes = new LinkedHashMap<>();
  private final Map<Integer, List<Edge>> edgesByChild = new LinkedHashMap<>();
  private final List<Edge> edges = new ArrayList<>();
  private final Set<Integer> parentNodes = new LinkedHashSet<>();

  Routing(Topology topology, int nodeId) {
    this.topology = topology;
    this.nodeId = nodeId;
    for (Color color : topology.colors()) {
      if (color.sequencerId() != nodeId && !color.isRoot() && hosts(color.parentId())) {
        Edge edge = new Edge(color.id(), color.sequencerId());
        edges.add(edge);
        edgesByChild.computeIfAbsent(color.sequencerId(), k -> new ArrayList<>()).add(edge);
      }
    }
    for (Color color : topology.colors()) {
      if (hosts(color.id()) && !color.isRoot() && !hosts(color.parentId())) {
        addRoutesThrough(color);
      }
    }
  }

  /** One route per non-hosted ancestor X of the exit color T, i.e. X above T's parent or equal. */
  private void addRoutesThrough(Color exit) {
    int parentNode = color(exit.parentId()).sequencerId();
    int parentEpoch = color(exit.parentId()).roleEpoch();
    for (Color x = color(exit.parentId()); x != null; x = parentOf(x)) {
      if (hosts(x.id())) {
        continue; // answered by the role here when the request reaches this node again
      }
      List<Integer> shards = new ArrayList<>();
      for (Shard shard : topology.shards()) {
        if (hosts(shard.colorId())
            && topology.isInSubtree(shard.colorId(), x.id())
            && exitColor(shard.colorId(), x.id()) == exit.id()) {
          shards.add(shard.id());
        }
      }
      List<Edge> down = new ArrayList<>();
      for (Edge edge : edges) {
        int position = color(edge.colorId()).parentId();
        if (topology.isInSubtree(position, x.id()) && exitColor(position, x.id()) == exit.id()) {
          down.add(edge);
        }
      }
      Route route =
          new Route(
              x.id(),
              exit.id(),
              parentNode,
              parentEpoch,
              shards.stream().mapToInt(Integer::intValue).toArray(),
              List.copyOf(down));
      routes.put(route.key(), route);
      parentNodes.add(parentNode);
    }
  }

  Topology topology() {
    return topology;
  }

  boolean hosts(int colorId) {
    return topology.color(colorId).map(c -> c.sequencerId() == nodeId).orElse(false);
  }

  /**
   * The exit color of a request for {@code colorId} (not hosted here) starting at the hosted {@code
   * position}: the topmost hosted color reached by climbing from the position, or -1 when {@code
   * colorId} is not an ancestor of the position.
   */
  int exitColor(int position, int colorId) {
    if (!hosts(position) || hosts(colorId) || !topology.isInSubtree(position, colorId)) {
      return -1;
    }
    Color c = color(position);
    while (!c.isRoot() && hosts(c.parentId())) {
      c = color(c.parentId());
    }
    return c.id();
  }

  /** The route of a request for non-hosted {@code colorId} at {@code position}, or null. */
  Route route(int position, int colorId) {
    int exit = exitColor(position, colorId);
    return exit < 0 ? null : routes.get(Route.key(colorId, exit));
  }

  /** The colors hosted on this node, in topology order. */
  List<Integer> hostedColors() {
    List<Integer> hosted = new ArrayList<>();
    for (Color color : topology.colors()) {
      if (color.sequencerId() == nodeId) {
        hosted.add(color.id());
      }
    }
    return hosted;
  }

  /** The route with {@link Route#key}, or null. */
  Route routeByKey(long key) {
    return routes.get(key);
  }

  /** Every forwarding route of this node, in a deterministic order. */
  List<Route> routes() {
    return List.copyOf(routes.values());
  }

  /** The nodes this node sends range requests to. */
  Set<Integer> parentNodes() {
    return Collections.unmodifiableSet(parentNodes);
  }

  /** Every edge from this node down to a child node. */
  List<Edge> edges() {
    return Collections.unmodifiableList(edges);
  }

  /** The edges down to {@code childNodeId}, empty when it is not a child of this node. */
  List<Edge> edgesTo(int childNodeId) {
    return edgesByChild.getOrDefault(childNodeId, List.of());
  }

  /** True when {@code colorId} is hosted by {@code childNodeId} and its parent by this node. */
  boolean isEdge(int colorId, int childNodeId) {
    for (Edge edge : edgesTo(childNodeId)) {
      if (edge.colorId() == colorId) {
        return true;
      }
    }
    return false;
  }

  /**
   * The child edges that hosted {@code colorId}'s watermarks descend: every edge whose position
   * (the parent of the child color) lies in the subtree of {@code colorId}.
   */
  List<Edge> edgesUnder(int colorId) {
    List<Edge> under = new ArrayList<>();
    for (Edge edge : edges) {
      if (topology.isInSubtree(color(edge.colorId()).parentId(), colorId)) {
        under.add(edge);
      }
    }
    return under;
  }

  /** The color ids from {@code colorId} up to the root, {@code colorId} first. */
  List<Integer> selfAndAncestors(int colorId) {
    List<Integer> path = new ArrayList<>();
    for (Color c = color(colorId); c != null; c = parentOf(c)) {
      path.add(c.id());
    }
    return path;
  }

  private Color color(int id) {
    return topology.color(id).orElseThrow();
  }

  private Color parentOf(Color c) {
    return c.isRoot() ? null : color(c.parentId());
  }
}
