package io.flexlog.replica.replication;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which role moves a replica acts on when it applies a newer topology
 * (docs/architecture.md#fencing): the role of a shard's color moved when the newer topology names
 * another leader or a larger role epoch for it. The replica resynchronises such a shard ({@link
 * SyncPhase#onRolesMoved}) and says HELLO again to the new leader, also when that node led the role
 * before (a restarted leader that took its role again, or a leader that lost the role and took it
 * back): the sync phase with the new leader starts at its WELCOME.
 */
public final class RoleMoves {
  private RoleMoves() {}

  /** True if the role of the color moved from {@code was} to {@code now}. */
  public static boolean moved(Color was, Color now) {
    return was.sequencerId() != now.sequencerId() || was.roleEpoch() != now.roleEpoch();
  }

  /**
   * The sequencer nodes that, in {@code after}, lead the role of one of the given shards whose role
   * moved since {@code before}.
   */
  public static Set<Integer> newLeaders(Topology before, Topology after, int[] shardIds) {
    Set<Integer> leaders = new TreeSet<>();
    for (int shardId : shardIds) {
      Shard shard = after.shard(shardId).orElse(null);
      if (shard == null) {
        continue;
      }
      Color was = before.color(shard.colorId()).orElse(null);
      Color now = after.color(shard.colorId()).orElse(null);
      if (was != null && now != null && moved(was, now)) {
        leaders.add(now.sequencerId());
      }
    }
    return leaders;
  }
}
