package io.flexlog.server.control.quorum;

import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease protocol of one sequencer node for the color roles (docs/architecture.md, "Sequencer
 * failover"), without threads or sockets: its shell calls {@link #tick} once per heartbeat and the
 * node's ordering asks {@link #mayIssue} before it issues SNs.
 *
 * <ul>
 *   <li>As a role's leader it renews the lease through the quorum every heartbeat. It may issue SNs
 *       until {@code send time of the last successful renewal + lease - margin}; a renewal that is
 *       refused (someone took the role) ends that at once, one that does not get through lets it
 *       lapse.
 *   <li>A node that finds itself named leader by a lease of an earlier incarnation (a restart)
 *       takes the role again first, so this incarnation issues in a new epoch.
 *   <li>A role whose epoch has no counter left tells the keeper ({@link #epochExhausted}); at its
 *       next heartbeat the keeper stops the old epoch and takes its own role again, so the quorum
 *       commits a new epoch and topology version on the same node, which the role adopts.
 *   <li>As a backup (every other sequencer node of the quorum) it watches the lease's renewal count
 *       in its copy of the metadata. When the count has not moved for a lease period (plus one
 *       heartbeat per backup ranked before it) it takes the role, on the condition that the lease
 *       is still the one it saw: the quorum gives the role epoch {@code e + 1} (at least this
 *       node's own epoch) and publishes the new leader as a new topology version before the node
 *       issues a single SN.
 * </ul>
 *
 * <p>Safety: a backup takes over at least a lease period after it saw the last renewal applied,
 * which was after that renewal was sent; the old leader stops a margin before a lease period after
 * it sent it. Both measure elapsed time on their own monotonic clocks.
 *
 * <p>Threading: {@link #tick} runs on one thread; {@link #mayIssue} may be called from any thread.
 */
public final class RoleLeaseKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(RoleLeaseKeeper.class);

  /** What the keeper needs from the metadata quorum; calls block up to the quorum's timeout. */
  public interface Quorum {
    RoleCommand.Reply renew(int colorId, int nodeId, int epoch);

    RoleCommand.Reply take(int colorId, int nodeId, RoleLease seen, int minEpoch);

    /** The leases of this node's copy of the metadata. */
    Map<Integer, RoleLease> leases();

    /** The topology of this node's copy of the metadata, or null before the first. */
    Topology topology();

    /**
     * The quorum members that answered this node lately while it leads the quorum; empty when it
     * does not lead the quorum. No round trip.
     */
    List<Integer> responsiveFollowers();

    /** Starts handing the quorum's leadership to {@code nodeId}; returns at once. */
    void handLeadershipTo(int nodeId);

    /**
     * This node's view of the quorum's leadership: a value that changes whenever the leader does
     * (the Raft term), -1 while no leader is known. Constant for a quorum that never changes
     * leader.
     */
    default long leadershipView() {
      return 0;
    }

    /** Adapts a {@link MetadataQuorum}. */
    static Quorum of(MetadataQuorum quorum) {
      QuorumLeadership leadership = quorum.leadership();
      return new Quorum() {
        @Override
        public List<Integer> responsiveFollowers() {
          return leadership.responsiveFollowers();
        }

        @Override
        public long leadershipView() {
          return leadership.leadershipView();
        }

        @Override
        public void handLeadershipTo(int nodeId) {
          // Off the heartbeat thread: renewals must not wait for Ratis to finish the hand-off.
          Thread handOff =
              new Thread(
                  () -> leadership.transferTo(nodeId), "flexlog-quorum-handoff-" + quorum.selfId());
          handOff.setDaemon(true);
          handOff.start();
        }

        @Override
        public RoleCommand.Reply renew(int colorId, int nodeId, int epoch) {
          return quorum.renewRole(colorId, nodeId, epoch);
        }

        @Override
        public RoleCommand.Reply take(int colorId, int nodeId, RoleLease seen, int minEpoch) {
          return quorum.takeRole(colorId, nodeId, seen, minEpoch);
        }

        @Override
        public Map<Integer, RoleLease> leases() {
          return quorum.localLeases();
        }

        @Override
        public Topology topology() {
          return quorum.localTopology().orElse(null);
        }
      };
    }
  }

  /**
   * Lease timing.
   *
   * @param heartbeat how often a leader renews and a backup looks
   * @param lease how long a backup waits for a renewal before it takes the role
   * @param margin how much earlier than that a leader stops issuing
   */
  public record Timing(Duration heartbeat, Duration lease, Duration margin) {
    public static final Timing DEFAULT =
        new Timing(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofMillis(100));

    public Timing {
      if (heartbeat.isNegative() || heartbeat.isZero()) {
        throw new IllegalArgumentException("heartbeat must be > 0, got " + heartbeat);
      }
      if (lease.compareTo(heartbeat.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException(
            "the lease (" + lease.toMillis() + " ms) must be at least two heartbeats");
      }
      if (margin.isNegative() || margin.compareTo(lease) >= 0) {
        throw new IllegalArgumentException("margin must be in [0, lease), got " + margin);
      }
    }
  }

  /** Lease periods between two hand-offs of the quorum's leadership. */
  static final int HAND_OFF_INTERVAL_LEASES = 10;

  /** Lease periods after this node took a role before it hands the quorum's leadership on. */
  static final int SETTLE_LEASES = 2;

  private final int selfId;
  private final int nodeEpoch;
  private final List<Integer> backups;
  private final Quorum quorum;
  private final LongSupplier nanoClock;
  private final Timing timing;

  /** colorId → the epoch this incarnation leads the role in. */
  private final Int2IntHashMap leading = new Int2IntHashMap(-1);

  /** colorId → nanos until which SNs may be issued; read by other threads. */
  private final Map<Integer, Long> validUntilNs = new ConcurrentHashMap<>();

  private final Map<Integer, Integer> validEpoch = new ConcurrentHashMap<>();

  /**
   * Colors this incarnation is taking now, each with the epoch of the lease it takes over (0: none;
   * the quorum gives a larger one), and (color, epoch) pairs it took; read by other threads.
   */
  private final Map<Integer, Integer> taking = new ConcurrentHashMap<>();

  private final Set<Long> taken = ConcurrentHashMap.newKeySet();

  /** colorId → the largest epoch the role reported exhausted; written by the ordering thread. */
  private final Map<Integer, Integer> exhausted = new ConcurrentHashMap<>();

  /** Roles taken again because their epoch was exhausted; tick thread writes, any thread reads. */
  private final AtomicLong exhaustionTakes = new AtomicLong();

  private final Int2ObjectHashMap<Seen> seen = new Int2ObjectHashMap<>();

  /** Colors whose last renewal or take failed for want of the quorum; tick thread only. */
  private final IntHashSet failing = new IntHashSet();

  /** When this node last handed the quorum's leadership away (see {@link #placeQuorumLeader}). */
  private long handedOffAtNs;

  private boolean handedOff;

  /** When this node last took a role. */
  private long lastTakeNs;

  /** The quorum's leadership as this node last saw it ({@link Quorum#leadershipView}). */
  private long leadershipView = Long.MIN_VALUE;

  /**
   * Since when the quorum has had the leader this node sees now: no lease counts as lapsed for time
   * before it (see {@link #watchQuorumLeadership}).
   */
  private long quorumSteadySinceNs;

  private record Seen(int leader, int epoch, long renewals, long sinceNs) {}

  /**
   * @param nodeEpoch this incarnation's node epoch: every epoch it takes a role in is at least this
   * @param backups the sequencer nodes of the quorum, in rank order (this node among them)
   */
  public RoleLeaseKeeper(
      int selfId,
      int nodeEpoch,
      List<Integer> backups,
      Quorum quorum,
      LongSupplier nanoClock,
      Timing timing) {
    this.selfId = selfId;
    this.nodeEpoch = nodeEpoch;
    this.backups = List.copyOf(backups);
    this.quorum = quorum;
    this.nanoClock = nanoClock;
    this.timing = timing;
  }

  public Timing timing() {
    return timing;
  }

  /**
   * Whether this node may issue SNs of {@code colorId} in {@code epoch} now: it leads the role in
   * that epoch and its lease has not lapsed.
   */
  public boolean mayIssue(int colorId, int epoch) {
    Integer e = validEpoch.get(colorId);
    Long until = validUntilNs.get(colorId);
    return e != null && e == epoch && until != null && nanoClock.getAsLong() < until;
  }

  /**
   * How many roles this node may issue SNs for now: it leads them and their leases have not lapsed
   * (the gauge {@code flexlog.sequencer.roles.leased}). A leader cut off from the quorum drops to 0
   * a margin before a backup may take its roles.
   */
  public int leasedRoles() {
    long now = nanoClock.getAsLong();
    int leased = 0;
    for (Long until : validUntilNs.values()) {
      if (now < until) {
        leased++;
      }
    }
    return leased;
  }

  /**
   * Whether this incarnation took the role of {@code colorId} in {@code epoch} or is taking the
   * role now (its epoch is not known before the quorum answers); see {@code IssueGate#tookEpoch}.
   */
  public boolean tookEpoch(int colorId, int epoch) {
    Integer over = taking.get(colorId);
    return (over != null && epoch > over) || taken.contains(((long) colorId << 32) | epoch);
  }

  /**
   * The role of {@code colorId} has no counter left in {@code epoch} ({@code
   * IssueGate#epochExhausted}): if this incarnation still leads it in that epoch, its next
   * heartbeat takes the role again instead of renewing it. Cheap and thread-safe; repeated calls
   * are harmless, and a call for an epoch the keeper no longer leads in is ignored.
   */
  public void epochExhausted(int colorId, int epoch) {
    Integer known = exhausted.get(colorId);
    if (known == null || known < epoch) {
      exhausted.merge(colorId, epoch, Math::max);
    }
  }

  /** How many times this keeper took a role again because its epoch was exhausted. */
  public long exhaustionTakes() {
    return exhaustionTakes.get();
  }

  /** One heartbeat: renew what this node leads, take what lapsed. */
  public void tick() {
    watchQuorumLeadership();
    Topology topology = quorum.topology();
    if (topology == null) {
      return;
    }
    Map<Integer, RoleLease> leases = quorum.leases();
    for (Color color : topology.colors()) {
      try {
        tick(color, leases.get(color.id()));
        failing.remove(color.id());
      } catch (MetadataUnavailableException e) {
        if (failing.add(color.id())) {
          LOG.warn(
              "node {}: the lease of color {} cannot be renewed or taken now (logged once until it"
                  + " can): {}",
              selfId,
              color.id(),
              e.getMessage());
        } else {
          LOG.debug("node {}: lease of color {}: {}", selfId, color.id(), e.getMessage());
        }
      }
    }
    placeQuorumLeader(quorum.leases());
  }

  /**
   * Restarts every backup's lapse clock while the quorum has no leader and when its leader changed.
   * Meanwhile no renewal could commit, so a renewal count that did not move says nothing about the
   * role's leader: the quorum's hand-off ({@link #placeQuorumLeader}) stalls renewals for longer
   * than a lease on a busy machine, and backups that counted that time took roles from healthy
   * leaders (docs/architecture.md#sequencer-failover). Delaying a take is always safe; it costs up
   * to a lease more when a role's leader dies while it also leads the quorum.
   */
  private void watchQuorumLeadership() {
    long view = quorum.leadershipView();
    if (view < 0 || view != leadershipView) {
      leadershipView = view;
      quorumSteadySinceNs = nanoClock.getAsLong();
    }
  }

  /**
   * Keeps the metadata quorum's leader off the role leaders (docs/architecture.md, "Sequencer
   * failover"): when this node leads a role and the quorum, it hands the quorum to a responsive
   * backup that leads no role. Otherwise a crash of this node would make the backups wait for a
   * quorum election (its timeout is longer than the lease) before they could take its roles. At
   * most one hand-off per {@link #HAND_OFF_INTERVAL_LEASES} lease periods, so a failing one does
   * not repeat at every heartbeat.
   */
  private void placeQuorumLeader(Map<Integer, RoleLease> leases) {
    if (leading.isEmpty()) {
      return;
    }
    long now = nanoClock.getAsLong();
    if (now - lastTakeNs < SETTLE_LEASES * timing.lease().toNanos()) {
      return; // a takeover settles first: its replicas are still syncing with this node
    }
    if (handedOff && now - handedOffAtNs < HAND_OFF_INTERVAL_LEASES * timing.lease().toNanos()) {
      return;
    }
    List<Integer> responsive = quorum.responsiveFollowers();
    if (responsive.isEmpty()) {
      return;
    }
    IntHashSet roleLeaders = new IntHashSet();
    for (RoleLease lease : leases.values()) {
      roleLeaders.add(lease.leaderNodeId());
    }
    for (int candidate : backups) {
      if (candidate != selfId
          && responsive.contains(candidate)
          && !roleLeaders.contains(candidate)) {
        handedOff = true;
        handedOffAtNs = now;
        LOG.info(
            "node {} leads the metadata quorum and role(s) of color(s) {}; handing the quorum to"
                + " node {}, which leads no role, so that a crash of this node needs no quorum"
                + " election before a backup takes its roles",
            selfId,
            leading.keySet(),
            candidate);
        quorum.handLeadershipTo(candidate);
        return;
      }
    }
  }

  private void tick(Color color, RoleLease lease) {
    int c = color.id();
    int led = leading.get(c);
    if (led >= 0 && (lease == null || lease.epoch() <= led)) {
      // This incarnation took the role; its copy of the metadata may not show that yet.
      Integer spent = exhausted.get(c);
      if (spent != null && spent == led) {
        takeNewEpoch(c, led);
      } else {
        renew(c, led);
      }
      return;
    }
    if (lease == null) {
      if (color.sequencerId() == selfId) {
        take(c, null);
      }
      return;
    }
    if (lease.leaderNodeId() == selfId) {
      if (leading.get(c) == lease.epoch()) {
        renew(c, lease.epoch());
      } else {
        take(c, lease);
      }
      return;
    }
    stepDown(c);
    int rank = backups.indexOf(selfId);
    if (rank < 0) {
      return;
    }
    long now = nanoClock.getAsLong();
    Seen last = seen.get(c);
    if (last == null
        || last.leader() != lease.leaderNodeId()
        || last.epoch() != lease.epoch()
        || last.renewals() != lease.renewals()) {
      seen.put(c, new Seen(lease.leaderNodeId(), lease.epoch(), lease.renewals(), now));
      return;
    }
    long waitNs = timing.lease().toNanos() + rank * timing.heartbeat().toNanos();
    if (now - Math.max(last.sinceNs(), quorumSteadySinceNs) >= waitNs) {
      LOG.warn(
          "node {}: the lease of color {} (leader {}, epoch {}) lapsed; taking the role",
          selfId,
          c,
          lease.leaderNodeId(),
          lease.epoch());
      take(c, lease);
    }
  }

  private void renew(int c, int epoch) {
    long sentNs = nanoClock.getAsLong();
    RoleCommand.Reply reply = quorum.renew(c, selfId, epoch);
    if (reply.applied()) {
      extend(c, epoch, sentNs);
    } else {
      LOG.warn("node {}: lost the role of color {} to {}", selfId, c, reply.lease());
      stepDown(c);
    }
  }

  /**
   * The role used up {@code epoch}: nothing more is issued in it from now on, whatever the quorum
   * answers, and the node takes its own role again (the quorum allows that to the leader and gives
   * a larger epoch). A refused take means another node took the role meanwhile; a take that did not
   * get through is tried again at the next heartbeat.
   */
  private void takeNewEpoch(int c, int epoch) {
    LOG.info(
        "node {}: epoch {} of color {} is exhausted; taking the role again in a new epoch",
        selfId,
        epoch,
        c);
    validUntilNs.remove(c);
    validEpoch.remove(c);
    take(c, new RoleLease(c, selfId, epoch, 0));
    if (leading.get(c) == epoch) {
      LOG.warn("node {}: could not take color {} again; another node leads it", selfId, c);
      stepDown(c);
    } else {
      exhaustionTakes.incrementAndGet();
    }
  }

  private void take(int c, RoleLease lapsed) {
    long sentNs = nanoClock.getAsLong();
    RoleCommand.Reply reply;
    taking.put(c, lapsed == null ? 0 : lapsed.epoch());
    try {
      reply = quorum.take(c, selfId, lapsed, nodeEpoch);
      if (reply.applied() && reply.lease() != null && reply.lease().leaderNodeId() == selfId) {
        taken.add(((long) c << 32) | reply.lease().epoch());
      }
    } finally {
      taking.remove(c);
    }
    seen.remove(c);
    if (reply.applied() && reply.lease() != null && reply.lease().leaderNodeId() == selfId) {
      lastTakeNs = sentNs;
      leading.put(c, reply.lease().epoch());
      extend(c, reply.lease().epoch(), sentNs);
      LOG.info("node {} leads color {} in epoch {}", selfId, c, reply.lease().epoch());
    }
  }

  private void extend(int c, int epoch, long sentNs) {
    validEpoch.put(c, epoch);
    validUntilNs.put(c, sentNs + timing.lease().toNanos() - timing.margin().toNanos());
  }

  private void stepDown(int c) {
    leading.remove(c);
    validUntilNs.remove(c);
    validEpoch.remove(c);
  }
}
