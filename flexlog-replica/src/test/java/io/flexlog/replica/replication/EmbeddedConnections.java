package io.flexlog.replica.replication;

import io.flexlog.replica.node.ChannelConnection;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/** For tests that drive the engine with embedded channels: one {@link Connection} per channel. */
public final class EmbeddedConnections {
  private static final AttributeKey<Connection> KEY =
      AttributeKey.valueOf(EmbeddedConnections.class, "connection");

  private EmbeddedConnections() {}

  /** The connection of {@code channel}, the same instance on every call. */
  public static Connection of(Channel channel) {
    Connection connection = channel.attr(KEY).get();
    if (connection == null) {
      connection = new ChannelConnection(channel);
      channel.attr(KEY).set(connection);
    }
    return connection;
  }
}
