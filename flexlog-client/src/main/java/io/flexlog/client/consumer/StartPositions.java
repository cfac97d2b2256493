package io.flexlog.client.consumer;

import io.flexlog.client.consumer.internals.Fetcher;
import io.flexlog.client.consumer.internals.GroupMember;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.TrimmedException;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Where a consumer starts a color shard: its committed position, else {@code auto.offset.reset};
 * and where it goes on when its position was trimmed.
 */
final class StartPositions implements Fetcher.Positions {
  private final ClientCore core;
  private final ConsumerConfig config;
  private final GroupMember member;
  private final BooleanSupplier manual;

  /**
   * @param member the group member, or null without a group.id
   * @param manual whether the consumer reads assigned shards outside the membership
   */
  StartPositions(
      ClientCore core, ConsumerConfig config, GroupMember member, BooleanSupplier manual) {
    this.core = core;
    this.config = config;
    this.member = member;
    this.manual = manual;
  }

  @Override
  public long initial(ColorShard cs) {
    if (member != null) {
      if (manual.getAsBoolean()) {
        // Outside the membership nothing orders this read after the last commit: sync first.
        Futures.await(
            member.sync(),
            config.client().deliveryTimeout(),
            "reading the committed position of " + cs);
      }
      Long committed = member.committed().get(cs);
      if (committed != null) {
        return committed;
      }
    }
    return reset(cs, "has no committed position");
  }

  @Override
  public long afterTrim(ColorShard cs, long trimmedPosition, TrimmedException cause) {
    if (config.autoOffsetReset().equals("none")) {
      throw new PositionOutOfRangeException(
          "position "
              + trimmedPosition
              + " of "
              + cs
              + " is trimmed ("
              + cause.getMessage()
              + ") and auto.offset.reset is none",
          cause);
    }
    return reset(cs, "is trimmed at " + trimmedPosition);
  }

  private long reset(ColorShard cs, String why) {
    switch (config.autoOffsetReset()) {
      case "earliest":
        return 0;
      case "latest":
        return endOf(cs);
      default:
        throw new NoPositionException(cs + " " + why + " and auto.offset.reset is none");
    }
  }

  /** The SN after the tail of the color: a no-op trim at SN 1 (never issued) reports the tail. */
  long endOf(ColorShard cs) {
    try {
      return core.trim(cs.color(), 1).get().tail() + 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WakeupException("interrupted while finding the end of " + cs, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof InvalidArgumentException) {
        // Some replica of the color has no record of it yet: it starts at the beginning there.
        return 0;
      }
      throw new NoPositionException(
          "cannot find the end of " + cs + ": " + e.getCause(), e.getCause());
    }
  }
}
