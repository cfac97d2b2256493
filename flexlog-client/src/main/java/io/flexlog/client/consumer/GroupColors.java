package io.flexlog.client.consumer;

import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.NewColor;
import io.flexlog.client.consumer.internals.GroupMember;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.UnknownColorException;

/**
 * Finds a group's internal color, creating it through {@link FlexLogAdmin} when it is missing: over
 * the data plane, on the consumer's own bootstrap servers, which relay the request to the cluster's
 * admin service (docs/architecture.md#consumer-groups).
 */
final class GroupColors {
  /**
   * The group member of a consumer with a {@code group.id}, its group color created first if
   * missing; null without a group.id.
   */
  static GroupMember memberOf(ClientCore core, ConsumerConfig config, String clientId) {
    if (config.groupId().isEmpty()) {
      return null;
    }
    ensure(core, config);
    return new GroupMember(
        core,
        config.groupColor(),
        clientId,
        config.sessionTimeout(),
        config.heartbeatInterval(),
        config.maxPollInterval());
  }

  /** The group color's parent: every group's log is one shard under the root color. */
  static final String PARENT = "global";

  private GroupColors() {}

  static void ensure(ClientCore core, ConsumerConfig config) {
    String name = config.groupColor();
    try {
      core.color(name);
      return;
    } catch (UnknownColorException e) {
      // create it below
    }
    try (FlexLogAdmin admin = FlexLogAdmin.create(config.client())) {
      admin.createColor(NewColor.of(name, PARENT).shards(1));
    } catch (FlexLogException e) {
      throw new GroupColorMissingException(
          "could not create the color of group '"
              + config.groupId()
              + "' ("
              + name
              + ") through the bootstrap servers "
              + config.client().bootstrapServers()
              + ": "
              + e.getMessage()
              + "; create it with `flexlog groups create --group "
              + config.groupId()
              + "`",
          e);
    }
    core.refreshMetadata();
    core.color(name);
  }
}
