package io.flexlog.client.consumer;

import java.util.Map;

/**
 * The outcome of {@link FlexLogConsumer#commitAsync}, told on the thread that calls {@code poll}.
 */
@FunctionalInterface
public interface CommitCallback {
  /**
   * @param positions what was committed (the next SN to read, per color shard)
   * @param error null on success, else why the commit was not stored (for example {@link
   *     CommitFailedException} after a rebalance)
   */
  void onComplete(Map<ColorShard, Long> positions, Exception error);
}
