package io.flexlog.client;

import java.util.OptionalLong;

/**
 * The settings {@link FlexLogAdmin#alterColor} changes, like the {@code retention.ms} and {@code
 * retention.bytes} of Kafka's topic configs (docs/architecture.md#retention); a setting left out
 * keeps its value. The admin service checks the values: one that is neither -1 nor positive fails
 * the call with {@code InvalidArgumentException} naming it.
 *
 * <pre>{@code
 * admin.alterColor("orders", AlterColorOptions.retentionMs(86_400_000).andRetentionBytes(-1));
 * }</pre>
 *
 * @param retentionMs the new retention.ms: -1 keeps everything, > 0 trims older records
 * @param retentionBytes the new retention.bytes per shard: -1 for no limit, or > 0
 */
public record AlterColorOptions(OptionalLong retentionMs, OptionalLong retentionBytes) {
  public AlterColorOptions {
    if (retentionMs.isEmpty() && retentionBytes.isEmpty()) {
      throw new IllegalArgumentException(
          "nothing to alter: give retention.ms or retention.bytes (or both)");
    }
  }

  /** Sets retention.ms only. */
  public static AlterColorOptions retentionMs(long ms) {
    return new AlterColorOptions(OptionalLong.of(ms), OptionalLong.empty());
  }

  /** Sets retention.bytes only. */
  public static AlterColorOptions retentionBytes(long bytes) {
    return new AlterColorOptions(OptionalLong.empty(), OptionalLong.of(bytes));
  }

  /** These options that also set retention.ms. */
  public AlterColorOptions andRetentionMs(long ms) {
    return new AlterColorOptions(OptionalLong.of(ms), retentionBytes);
  }

  /** These options that also set retention.bytes. */
  public AlterColorOptions andRetentionBytes(long bytes) {
    return new AlterColorOptions(retentionMs, OptionalLong.of(bytes));
  }
}
