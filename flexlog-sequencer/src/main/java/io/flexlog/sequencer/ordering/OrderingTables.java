package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node orders and forwards under its current topology: one {@link OrderingRole} per hosted
 * color, one {@link ForwardRoute} per route (see {@link Routing}), and the primitive-keyed lookups
 * the request path uses. {@link #install} applies a newer topology and keeps the state (counters,
 * dedup windows, outstanding requests) of everything that still exists, which is everything: a
 * topology change only adds.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class OrderingTables {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  /** A hosted color: its role, its meters and the child edges its watermarks descend. */
  static final class HostedColor {
    final OrderingRole role;
    final SequencerMetrics.RoleMeters meters;
    final JoinMarks marks = new JoinMarks();
    Routing.Edge[] edges;

    /** The save of its marks while it is not known durable: the role issues nothing until it is. */
    CompletableFuture<Void> saving;

    /** Whether the failure of {@link #saving} was logged. */
    boolean savingFailureLogged;

    /**
     * Whether the role still has to look for shards of its subtree that lack a saved mark ({@link
     * JoinMarkTaker#takeLost}); it issues nothing until it did.
     */
    boolean marksUnchecked;

    HostedColor(OrderingRole role, SequencerMetrics.RoleMeters meters) {
      this.role = role;
      this.meters = meters;
    }
  }

  private final int nodeId;
  private final int dedupWindow;
  private final long maxCounter;
  private final NodeEpochs epochs;
  private final SequencerMetrics metrics;
  private final IssueObserver observer;
  private IssueGate gate = IssueGate.ALWAYS;
  private JoinMarkStore markStore = JoinMarkStore.NONE;
  private Consumer<HostedColor> checkMarks = h -> {};

  private Topology topology;
  private Routing routing;
  private final Int2ObjectHashMap<HostedColor> hosted = new Int2ObjectHashMap<>();
  private final ArrayList<HostedColor> hostedList = new ArrayList<>();

  /** The shards whose own color this node hosts: it is their replicas' sequencer node. */
  private final IntHashSet entryShards = new IntHashSet();

  private final Long2ObjectHashMap<ForwardRoute> routes = new Long2ObjectHashMap<>();
  private final ArrayList<ForwardRoute> routeList = new ArrayList<>();
  private final Long2ObjectHashMap<ForwardRoute> routeByPosition = new Long2ObjectHashMap<>();

  /**
   * Join marks that came down each parent edge, by route key, whether or not this node has the
   * route yet: a parent with a newer topology may send a mark before this node learns the route,
   * and the shards that join the route meanwhile must still get it before the route's watermarks.
   */
  private final Long2ObjectHashMap<JoinMarks> marksByEdge = new Long2ObjectHashMap<>();

  OrderingTables(
      int nodeId,
      int dedupWindow,
      long maxCounter,
      NodeEpochs epochs,
      SequencerMetrics metrics,
      IssueObserver observer) {
    this.nodeId = nodeId;
    this.dedupWindow = dedupWindow;
    this.maxCounter = maxCounter;
    this.epochs = epochs;
    this.metrics = metrics;
    this.observer = observer;
  }

  /** Sets the gate of every role, present and future; before the first turn. */
  void gate(IssueGate gate) {
    this.gate = gate;
    for (HostedColor h : hostedList) {
      h.role.gate(gated(h, gate));
    }
  }

  /** {@code gate}, closed while a mark of the color is not durable (see {@link #saveMarks}). */
  private IssueGate gated(HostedColor h, IssueGate gate) {
    return new IssueGate() {
      @Override
      public boolean mayIssue(int colorId, int epoch) {
        if (h.marksUnchecked) {
          checkMarks.accept(h);
          if (h.marksUnchecked) {
            return false;
          }
        }
        return marksDurable(h) && gate.mayIssue(colorId, epoch);
      }

      @Override
      public boolean tookEpoch(int colorId, int epoch) {
        return gate.tookEpoch(colorId, epoch);
      }

      @Override
      public void epochExhausted(int colorId, int epoch) {
        gate.epochExhausted(colorId, epoch);
      }
    };
  }

  /**
   * Keeps the hosted roles' join marks in {@code store} from now on, and loads the marks saved
   * there for every role hosted now (later roles load theirs when they are created); before the
   * first turn.
   */
  void markStore(JoinMarkStore store) {
    this.markStore = store;
    for (HostedColor h : hostedList) {
      h.marks.load(store.load(h.role.colorId()));
      h.marksUnchecked = store.complete();
    }
  }

  /**
   * What a role whose marks are unchecked runs when its gate is asked: {@link
   * JoinMarkTaker#takeLost}, which may take a mark (and so write frames); before the first turn.
   */
  void onUncheckedMarks(Consumer<HostedColor> check) {
    this.checkMarks = check;
  }

  /**
   * Whether the marks {@code h} loaded are all its color's saved marks, so that a shard none names
   * lacks one ({@link JoinMarkTaker#takeLost}): the store keeps every leader's marks ({@link
   * JoinMarkStore#complete}) and, for a role whose epoch comes from the metadata quorum, this
   * process took the role in the epoch the topology names (so this node's copy of the metadata has
   * applied every mark saved before that take). Without leases (no failover), at once.
   */
  boolean marksCheckable(HostedColor h) {
    if (!markStore.complete()) {
      return false;
    }
    int colorId = h.role.colorId();
    int committed = committedRoleEpoch(h);
    return committed == 0
        || !leased()
        || (committed == h.role.epoch() && gate.tookEpoch(colorId, committed));
  }

  /** The role epoch the topology names for {@code h}'s color: 0 before its first lease. */
  int committedRoleEpoch(HostedColor h) {
    return topology.color(h.role.colorId()).map(Color::roleEpoch).orElse(0);
  }

  /** Whether the roles issue under leases of the metadata quorum (with failover). */
  boolean leased() {
    return gate != IssueGate.ALWAYS;
  }

  /** Whether the store keeps every mark {@code h} holds, where the role's next leader looks. */
  boolean marksKept(HostedColor h) {
    return markStore.keeps(h.role.colorId(), h.marks.toList());
  }

  /**
   * Starts making the join marks of {@code hosted} durable. Until they are, the role issues nothing
   * (its gate looks again each time it is asked, every few milliseconds while there is work, and
   * saves again after a failure): an SN at or above a mark that a restart or a failover would
   * forget could reach a subscriber that never learns of the new shards
   * (docs/architecture.md#join-marks).
   */
  void saveMarks(HostedColor hosted) {
    startSave(hosted);
    marksDurable(hosted);
  }

  private boolean marksDurable(HostedColor h) {
    CompletableFuture<Void> saving = h.saving;
    if (saving == null) {
      return true;
    }
    if (!saving.isDone()) {
      return false;
    }
    if (saving.isCompletedExceptionally()) {
      if (!h.savingFailureLogged) {
        h.savingFailureLogged = true;
        LOG.error(
            "color {}: cannot save its join marks; it orders nothing until they are saved",
            OrderingService.describe(h.role.color()),
            failure(saving));
      }
      startSave(h);
      return false;
    }
    if (h.savingFailureLogged) {
      LOG.info("color {}: join marks saved", OrderingService.describe(h.role.color()));
    }
    h.saving = null;
    h.savingFailureLogged = false;
    return true;
  }

  private static Throwable failure(CompletableFuture<Void> failed) {
    try {
      failed.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (RuntimeException e) {
      return e;
    }
  }

  private void startSave(HostedColor h) {
    try {
      h.saving = markStore.save(h.role.colorId(), h.marks.toList());
    } catch (RuntimeException e) {
      h.saving = CompletableFuture.failedFuture(e);
    }
  }

  /**
   * What {@link #install} changed that the links must follow
   * (docs/architecture.md#sequencer-failover): roles handed to another node, routes whose parent
   * role failed over to another node or epoch (with the parent node they had), and routes this node
   * no longer has (the request path now ends at a role here, climbs another route, or no longer
   * starts here).
   */
  record Changes(
      List<OrderingRole> droppedRoles,
      List<ForwardRoute> retargeted,
      List<Integer> formerParents,
      List<ForwardRoute> retired) {
    boolean isEmpty() {
      return droppedRoles.isEmpty() && retargeted.isEmpty() && retired.isEmpty();
    }
  }

  /** Applies {@code topology}; the caller checked it with {@link TopologyChange}. */
  Changes install(Topology topology) {
    this.topology = topology;
    this.routing = new Routing(topology, nodeId);
    Changes changes =
        new Changes(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    // A role handed to another node (failover) leaves this one.
    for (HostedColor h : hostedList) {
      if (!routing.hostedColors().contains(h.role.colorId())) {
        changes.droppedRoles().add(h.role);
      }
    }
    hostedList.removeIf(h -> !routing.hostedColors().contains(h.role.colorId()));
    hosted.keySet().removeIf(colorId -> !routing.hostedColors().contains(colorId));
    for (int colorId : routing.hostedColors()) {
      HostedColor h = hosted.get(colorId);
      if (h == null) {
        h = newHostedColor(topology.color(colorId).orElseThrow());
        hosted.put(colorId, h);
        hostedList.add(h);
      } else {
        h.role.addShards(topology.shardsInSubtree(colorId));
        h.role.adoptRoleEpoch(topology.color(colorId).orElseThrow().roleEpoch());
        // A shared store may have learned marks since (another leader's, applied after start).
        h.marks.load(markStore.load(colorId));
      }
      h.edges = routing.edgesUnder(colorId).toArray(new Routing.Edge[0]);
    }
    for (Routing.Route r : routing.routes()) {
      ForwardRoute route = routes.get(r.key());
      if (route == null) {
        route =
            new ForwardRoute(
                r,
                topology.version(),
                dedupWindow,
                (int) Math.min(maxCounter, Integer.MAX_VALUE),
                metrics.forRoute(topology.color(r.colorId()).orElseThrow().name()));
        routes.put(r.key(), route);
        routeList.add(route);
      } else {
        int formerParent = route.parentNodeId();
        if (route.retarget(r)) {
          changes.retargeted().add(route);
          changes.formerParents().add(formerParent);
        }
        route.update(r, topology.version());
      }
    }
    for (ForwardRoute route : routeList) {
      if (routing.routeByKey(Routing.Route.key(route.colorId(), route.exitColorId())) == null) {
        changes.retired().add(route);
        routes.remove(Routing.Route.key(route.colorId(), route.exitColorId()));
      }
    }
    routeList.removeAll(changes.retired());
    routeByPosition.clear();
    for (int position : routing.hostedColors()) {
      for (int colorId : routing.selfAndAncestors(position)) {
        Routing.Route r = routing.route(position, colorId);
        if (r != null) {
          routeByPosition.put(positionKey(position, colorId), routes.get(r.key()));
        }
      }
    }
    entryShards.clear();
    for (Shard shard : topology.shards()) {
      if (hosted.containsKey(shard.colorId())) {
        entryShards.add(shard.id());
      }
    }
    return changes;
  }

  private HostedColor newHostedColor(Color color) {
    OrderingRole role =
        new OrderingRole(
            color,
            topology.shardsInSubtree(color.id()),
            dedupWindow,
            epochs.current(),
            maxCounter,
            epochs);
    role.observe(observer);
    HostedColor hosted = new HostedColor(role, metrics.forColor(color.name()));
    role.gate(gated(hosted, gate));
    hosted.marks.load(markStore.load(color.id()));
    hosted.marksUnchecked = markStore.complete();
    return hosted;
  }

  private static long positionKey(int position, int colorId) {
    return ((long) position << 32) | (colorId & 0xFFFF_FFFFL);
  }

  Topology topology() {
    return topology;
  }

  Routing routing() {
    return routing;
  }

  /**
   * Whether this node is the sequencer node of the shard's replicas: it hosts the shard's own
   * color. Only those replicas get this node's watermarks; a shard of a descendant color hosted
   * elsewhere gets them through that node (docs/architecture.md#fencing, "Registrations of a lost
   * role").
   */
  boolean entersHere(int shardId) {
    return entryShards.contains(shardId);
  }

  /** The hosted color, or null when another node orders it. */
  HostedColor hosted(int colorId) {
    return hosted.get(colorId);
  }

  List<HostedColor> hostedColors() {
    return hostedList;
  }

  /** The route a request for non-hosted {@code colorId} takes from hosted {@code position}. */
  ForwardRoute route(int position, int colorId) {
    return routeByPosition.get(positionKey(position, colorId));
  }

  /** The route of {@code colorId} leaving over the edge {@code exitColorId}, or null. */
  ForwardRoute routeVia(int colorId, int exitColorId) {
    return routes.get(Routing.Route.key(colorId, exitColorId));
  }

  /** The join marks of {@code colorId} that came down the edge {@code exitColorId}. */
  JoinMarks marksVia(int colorId, int exitColorId) {
    long key = Routing.Route.key(colorId, exitColorId);
    JoinMarks marks = marksByEdge.get(key);
    if (marks == null) {
      marks = new JoinMarks();
      marksByEdge.put(key, marks);
    }
    return marks;
  }

  List<ForwardRoute> routes() {
    return routeList;
  }

  /** The largest range one request may ask for: a role refuses more. */
  int maxRange() {
    return (int) Math.min(maxCounter, Integer.MAX_VALUE);
  }
}
