package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;

/**
 * A commit the group log rejected: the member no longer owns a shard it commits for (a rebalance
 * moved it, or the member was removed from the group after missing its session timeout or
 * max.poll.interval.ms), or the group still has members (reset-positions).
 */
public class CommitFailedException extends FlexLogException {
  public CommitFailedException(String message) {
    super(message);
  }

  public CommitFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
