package io.flexlog.client.consumer;

import java.time.Duration;

/**
 * Creates a group's internal color when a consumer finds it missing. The client jar has no admin
 * client (it stays free of gRPC), so an implementation is found with {@link
 * java.util.ServiceLoader}: {@code flexlog-server} provides one over the admin service (AddColor,
 * the call behind {@code flexlog colors add}). Without one on the class path, create the color with
 * {@code flexlog groups create --group <id>}.
 */
public interface GroupColorProvisioner {
  /**
   * Creates color {@code name} under {@code global} with one shard, or succeeds if it exists.
   *
   * @param adminAddress {@code host:port} of the admin service ({@code group.admin.address})
   * @throws io.flexlog.core.error.FlexLogException if it could not be created
   */
  void createGroupColor(String name, String adminAddress, Duration timeout);
}
