package io.flexlog.server.control;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.client.consumer.GroupColorProvisioner;
import java.time.Duration;

/**
 * Creates a consumer group's internal color through the admin service (AddColor, the call behind
 * {@code flexlog colors add}): under {@code global}, one shard, the default replication factor.
 * Found by {@code FlexLogConsumer} with {@link java.util.ServiceLoader} when flexlog-server is on
 * the class path.
 */
public final class AdminGroupColorProvisioner implements GroupColorProvisioner {
  @Override
  public void createGroupColor(String name, String adminAddress, Duration timeout) {
    try (AdminClient admin = AdminClient.connect(adminAddress, timeout)) {
      admin.addColor(
          AddColorRequest.newBuilder().setName(name).setParent("global").setShards(1).build());
    }
  }
}
