package io.flexlog.sequencer.net;

import io.flexlog.sequencer.ordering.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * An {@link Outbound} over a Netty channel. Writes use the void promise, which saves an allocation
 * per write; a failed write reaches the channel's {@code exceptionCaught}, which closes it.
 */
final class ChannelOutbound implements Outbound {
  private final Channel channel;

  ChannelOutbound(Channel channel) {
    this.channel = channel;
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
  public void close() {
    channel.close();
  }

  @Override
  public String toString() {
    return String.valueOf(channel.remoteAddress());
  }
}
