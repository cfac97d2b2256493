package io.flexlog.client.consumer;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.consumer.internals.GroupMember;
import io.flexlog.client.consumer.internals.GroupState;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Inspects and administers consumer groups through their logs (what {@code flexlog groups
 * describe|reset-positions} call). Each call reads the group's color up to the moment of the call.
 */
public final class FlexLogGroups {
  private FlexLogGroups() {}

  /** A member as the group log knows it. */
  public record MemberDescription(String id, List<String> colors, Set<ColorShard> shards) {}

  /** A group as its log says now. */
  public record GroupDescription(
      String groupId,
      long generation,
      List<MemberDescription> members,
      Map<ColorShard, Long> committed) {}

  /** The name of a group's internal color. */
  public static String groupColor(String groupId) {
    return ConsumerConfig.GROUP_COLOR_PREFIX + groupId;
  }

  /**
   * @throws io.flexlog.core.error.UnknownColorException if the group has no color (never used)
   */
  public static GroupDescription describe(FlexLogConfig config, String groupId) {
    try (ClientCore core = ClientCore.connect(config);
        GroupMember reader = reader(core, groupId)) {
      await(reader.sync(), config.deliveryTimeout());
      GroupState.Snapshot s = reader.snapshot();
      List<MemberDescription> members = new ArrayList<>();
      for (GroupState.Member m : s.members()) {
        Set<ColorShard> shards = new java.util.TreeSet<>();
        s.owners()
            .forEach(
                (cs, o) -> {
                  if (o.member().equals(m.id())) {
                    shards.add(cs);
                  }
                });
        members.add(new MemberDescription(m.id(), m.colors(), shards));
      }
      return new GroupDescription(groupId, s.generation(), members, new TreeMap<>(s.committed()));
    }
  }

  /**
   * Sets committed positions (the next SN to read per color shard).
   *
   * @throws CommitFailedException while the group has members (stop them first)
   */
  public static void resetPositions(
      FlexLogConfig config, String groupId, Map<ColorShard, Long> positions) {
    try (ClientCore core = ClientCore.connect(config);
        GroupMember writer = reader(core, groupId)) {
      await(writer.reset(positions), config.deliveryTimeout());
    }
  }

  private static GroupMember reader(ClientCore core, String groupId) {
    String color = groupColor(groupId);
    core.color(color);
    Duration never = Duration.ofDays(365);
    return new GroupMember(core, color, "admin", never, Duration.ofDays(1), never);
  }

  private static void await(CompletableFuture<?> future, Duration timeout) {
    try {
      future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted", e);
    } catch (TimeoutException e) {
      throw new FlexLogTimeoutException(
          "the group log did not answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof FlexLogException f) {
        throw f;
      }
      throw new FlexLogException(String.valueOf(e.getCause()), e.getCause());
    }
  }
}
