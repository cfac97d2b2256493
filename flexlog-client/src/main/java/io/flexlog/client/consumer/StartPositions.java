package io.flexlog.client.consumer;

import io.flexlog.client.ColorTail;
import io.flexlog.client.consumer.internals.Fetcher;
import io.flexlog.client.consumer.internals.GroupMember;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.TrimmedException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

  /** The SN after the tail of the color. */
  long endOf(ColorShard cs) {
    return bounds(List.of(cs), true).get(cs);
  }

  /**
   * Where the colors of {@code shards} begin (their head: trim point + 1) or end (their tail + 1),
   * as {@code FlexLog.tail} reports them: one query per color, all sent before the first answer is
   * awaited. Nothing is written: a reader never moves a trim point.
   */
  Map<ColorShard, Long> bounds(Collection<ColorShard> shards, boolean end) {
    Map<String, CompletableFuture<ColorTail>> queries = new HashMap<>();
    for (ColorShard cs : shards) {
      core.color(cs.color()); // UnknownColorException for a color the cluster does not have
      queries.computeIfAbsent(cs.color(), core::tail);
    }
    Map<ColorShard, Long> result = new LinkedHashMap<>();
    for (ColorShard cs : shards) {
      ColorTail bounds = await(cs, queries.get(cs.color()));
      result.put(cs, end ? bounds.tail() + 1 : bounds.head());
    }
    return result;
  }

  private static ColorTail await(ColorShard cs, CompletableFuture<ColorTail> query) {
    try {
      return query.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WakeupException("interrupted while finding where " + cs + " begins and ends", e);
    } catch (ExecutionException e) {
      throw new NoPositionException(
          "cannot find where " + cs + " begins and ends: " + e.getCause(), e.getCause());
    }
  }
}
