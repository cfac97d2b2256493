package io.flexlog.client;

/**
 * The outcome of {@link FlexLog#trim}: every replica of every shard in the color's subtree recorded
 * the trim point durably (docs/architecture.md#trim).
 *
 * @param color the trimmed color
 * @param trimPoint every record of the color at or below this SN is gone: the smallest trim point
 *     the replicas reported (at least the requested SN; more if an earlier trim went further)
 * @param tail the largest SN of the color the replicas knew to be assigned when they trimmed
 */
public record TrimResult(String color, long trimPoint, long tail) {
  /** The first SN a reader may still find: one past the trim point. */
  public long head() {
    return trimPoint + 1;
  }
}
