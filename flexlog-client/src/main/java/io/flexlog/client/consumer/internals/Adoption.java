package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a member's local assignment moves to what the group log now gives it: the shards to drop
 * (revoked) and to start from their committed positions (added). A shard that the member lost and
 * got back between two looks (its {@code sinceGeneration} changed) counts as both, so that the
 * member never continues from a position another owner has moved past.
 */
public final class Adoption {
  private Adoption() {}

  /** What changed. */
  public record Change(List<ColorShard> revoked, List<ColorShard> added) {
    public boolean isEmpty() {
      return revoked.isEmpty() && added.isEmpty();
    }
  }

  /**
   * @param adopted the shards the member reads now, with the generation since which it owns each
   * @param owned the shards the log gives it now, likewise
   */
  public static Change diff(Map<ColorShard, Long> adopted, Map<ColorShard, Long> owned) {
    List<ColorShard> revoked = new ArrayList<>();
    List<ColorShard> added = new ArrayList<>();
    adopted.forEach(
        (cs, since) -> {
          if (!Objects.equals(owned.get(cs), since)) {
            revoked.add(cs);
          }
        });
    owned.forEach(
        (cs, since) -> {
          if (!Objects.equals(adopted.get(cs), since)) {
            added.add(cs);
          }
        });
    revoked.sort(null);
    added.sort(null);
    return new Change(revoked, added);
  }
}
