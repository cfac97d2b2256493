package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import java.util.List;
import java.util.Map;

/**
 * The records of a group's log (docs/architecture.md#consumer-groups), decoded. Their byte layout
 * is in {@link GroupRecordDescriptor}; {@link GroupState} gives them their meaning.
 */
public sealed interface GroupRecord {
  /** A member joins (or changes its subscription); starts a new generation. */
  record Join(String member, long sessionTimeoutMs, List<String> colors) implements GroupRecord {}

  /** A member is alive. */
  record Heartbeat(String member) implements GroupRecord {}

  /** A member leaves on its own (close, or max.poll.interval.ms passed); new generation. */
  record Leave(String member) implements GroupRecord {}

  /**
   * Another member saw no heartbeat of {@code member} for its session timeout; takes effect only if
   * the member's last heartbeat in the log is still the one at {@code lastBeatSn}.
   */
  record Expel(String member, long lastBeatSn) implements GroupRecord {}

  /** The leader's assignment for {@code generation}: who reads which color shard. */
  record Assign(long generation, Map<ColorShard, String> owners) implements GroupRecord {}

  /**
   * Positions (next SN to read) committed by {@code writer}, a group member ({@code asMember}) as
   * of {@code generation}, or a consumer outside the membership with assigned shards. {@code seq}
   * increases with every commit of the writer, so that a commit overtaken by the writer's next one
   * (appends may land out of order) cannot move a position back.
   */
  record Commit(
      String writer, boolean asMember, long generation, long seq, Map<ColorShard, Long> positions)
      implements GroupRecord {}

  /** An operator's reset of positions (bin/flexlog groups reset-positions); needs no members. */
  record Reset(Map<ColorShard, Long> positions) implements GroupRecord {}

  /** The whole state as of the record at {@code basedOnSn}: the log before it may be trimmed. */
  record Checkpoint(long basedOnSn, GroupState.Snapshot state) implements GroupRecord {}

  /** Changes nothing: a reader waits for it to know it has applied everything before. */
  record Sync(long nonce) implements GroupRecord {}
}
