package io.flexlog.replica.node;

import io.flexlog.replica.replication.Connection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;

/**
 * A {@link Connection} over a Netty channel. Writes use the void promise, which saves an allocation
 * per write; a failed write reaches the channel's {@code exceptionCaught}, which closes it.
 *
 * <p>One instance per channel, made by the channel's handler when the channel is set up, so that
 * the state machines can key their maps by connection.
 */
public final class ChannelConnection implements Connection {
  private final Channel channel;

  public ChannelConnection(Channel channel) {
    this.channel = channel;
  }

  @Override
  public ByteBufAllocator alloc() {
    return channel.alloc();
  }

  @Override
  public void write(ByteBuf frame) {
    channel.write(frame, channel.voidPromise());
  }

  @Override
  public void flush() {
    channel.flush();
  }

  @Override
  public boolean isActive() {
    return channel.isActive();
  }

  @Override
  public boolean isWritable() {
    return channel.isWritable();
  }

  @Override
  public void close() {
    channel.close();
  }

  @Override
  public String toString() {
    return String.valueOf(channel.remoteAddress());
  }
}
