package io.flexlog.client.consumer;

import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.UnknownColorException;
import java.util.ServiceLoader;

/**
 * Finds a group's internal color, creating it through a {@link GroupColorProvisioner} if missing.
 */
final class GroupColors {
  private GroupColors() {}

  static void ensure(ClientCore core, ConsumerConfig config) {
    String name = config.groupColor();
    try {
      core.color(name);
      return;
    } catch (UnknownColorException e) {
      // create it below
    }
    GroupColorProvisioner provisioner =
        ServiceLoader.load(GroupColorProvisioner.class, GroupColors.class.getClassLoader())
            .findFirst()
            .orElseThrow(
                () ->
                    new GroupColorMissingException(
                        "the color of group '"
                            + config.groupId()
                            + "' ("
                            + name
                            + ") does not exist and no GroupColorProvisioner is on the class path;"
                            + " create it with `flexlog groups create --group "
                            + config.groupId()
                            + "`"));
    try {
      provisioner.createGroupColor(
          name, config.groupAdminAddress(), config.client().deliveryTimeout());
    } catch (RuntimeException e) {
      throw new GroupColorMissingException(
          "could not create the color of group '"
              + config.groupId()
              + "' ("
              + name
              + ") through the admin service at "
              + config.groupAdminAddress()
              + " (group.admin.address): "
              + e.getMessage(),
          e);
    }
    core.refreshMetadata();
    core.color(name);
  }
}
