package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerRebalanceListener;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A group member's side of rebalancing (docs/architecture.md#consumer-groups): at each poll it
 * adopts the assignment the group log now gives the member, moves the {@link Fetcher} to it and
 * tells the rebalance listener only the shards that moved (cooperative rebalancing). It also
 * remembers the generation of the assignment last adopted, which commits carry for fencing.
 *
 * <p>Threading: the consumer's thread only.
 */
public final class Rebalancer {
  private final Fetcher<?, ?> fetcher;
  private final Map<ColorShard, Long> adopted = new TreeMap<>();
  private ConsumerRebalanceListener listener = ConsumerRebalanceListener.NONE;
  private long generation = -1;

  public Rebalancer(Fetcher<?, ?> fetcher) {
    this.fetcher = fetcher;
  }

  /** The listener told about later rebalances; null for none. */
  public void listener(ConsumerRebalanceListener listener) {
    this.listener = listener == null ? ConsumerRebalanceListener.NONE : listener;
  }

  /** The generation of the assignment last adopted, -1 before the first. */
  public long generation() {
    return generation;
  }

  /** Adopts {@code now}, telling the listener what moved. */
  public void adopt(MemberLogic.Assignment now) {
    Adoption.Change change = Adoption.diff(adopted, now.owned());
    generation = now.generation();
    if (change.isEmpty()) {
      return;
    }
    if (!change.revoked().isEmpty()) {
      listener.onRevoked(change.revoked());
    }
    // A shard lost and regained since the last look restarts from its committed position.
    Set<ColorShard> kept = new TreeSet<>(now.owned().keySet());
    kept.removeAll(change.added());
    fetcher.assign(kept);
    fetcher.assign(now.owned().keySet());
    adopted.clear();
    adopted.putAll(now.owned());
    if (!change.added().isEmpty()) {
      listener.onAssigned(change.added());
    }
  }

  /** The member leaves the group: every shard it reads is revoked. */
  public void revokeAll() {
    listener.onRevoked(new ArrayList<>(fetcher.assignment()));
  }

  /** Forgets what was adopted (after leaving the group, or without one). */
  public void reset() {
    adopted.clear();
    generation = -1;
  }
}
