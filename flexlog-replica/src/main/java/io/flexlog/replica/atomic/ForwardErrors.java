package io.flexlog.replica.atomic;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.Optional;

/**
 * Classifies what can go wrong with a forwarded member, against this replica's topology: an error
 * that retrying cannot cure (the member fails for good) versus one that may go away (the member is
 * sent again after its backoff).
 */
final class ForwardErrors {
  private ForwardErrors() {}

  /**
   * Whether retrying cannot help: the target refused the record itself, or it does not know a color
   * or shard that this replica's topology does not have either (a topology change after the STAGE).
   * An unknown color or shard this replica still knows is a target that lags behind; NOT_READY,
   * STORAGE_FULL, INTERNAL and the like are transient.
   */
  static boolean isPermanent(ErrorCode code, Topology topology, int targetColor, int targetShard) {
    return switch (code) {
      case RECORD_TOO_LARGE, INVALID_ARGUMENT, PROTOCOL -> true;
      case UNKNOWN_COLOR, UNKNOWN_SHARD -> targetGone(topology, targetColor, targetShard) != null;
      default -> false;
    };
  }

  /**
   * Why a member cannot be sent at all: UNKNOWN_COLOR if its target color is gone from this
   * replica's topology, UNKNOWN_SHARD if its target shard is gone or no longer in the color's
   * subtree; null if the target is still there.
   */
  static ErrorCode targetGone(Topology topology, int targetColor, int targetShard) {
    if (topology.color(targetColor).isEmpty()) {
      return ErrorCode.UNKNOWN_COLOR;
    }
    Optional<Shard> shard = topology.shard(targetShard);
    if (shard.isEmpty() || !topology.isInSubtree(shard.get().colorId(), targetColor)) {
      return ErrorCode.UNKNOWN_SHARD;
    }
    return null;
  }
}
