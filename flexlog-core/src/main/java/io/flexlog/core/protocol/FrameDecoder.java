package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the byte stream into validated frames (see {@link FrameDescriptor}). Each emitted frame is
 * a retained slice starting at its length field; the next handler owns and releases it.
 *
 * <p>On the first malformed frame it fires a {@link ProtocolException} and discards everything
 * after it: the connection is beyond repair, and the handler behind it is expected to answer with
 * an ERROR and close the channel. Other connections are unaffected.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final int maxFrameBytes;
  private boolean failed;

  /**
   * @param maxFrameBytes the largest frame accepted, length field included
   */
  public FrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes < FrameDescriptor.HEADER_LENGTH) {
      throw new IllegalArgumentException("maxFrameBytes too small: " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (in.readableBytes() >= 4) {
      int length = in.getInt(in.readerIndex());
      if (length < FrameDescriptor.LENGTH_FIELD_OVERHEAD || length > maxFrameBytes - 4) {
        fail(in, "frame length " + length + " outside [12, " + (maxFrameBytes - 4) + "]");
      }
      if (in.readableBytes() < 4 + length) {
        return;
      }
      ByteBuf frame = in.retainedSlice(in.readerIndex(), 4 + length);
      in.skipBytes(4 + length);
      try {
        Frames.validate(frame);
      } catch (ProtocolException e) {
        frame.release();
        fail(in, e.getMessage());
      } catch (RuntimeException e) {
        frame.release();
        fail(in, "undecodable frame: " + e);
      }
      out.add(frame);
    }
  }

  private void fail(ByteBuf in, String message) {
    failed = true;
    in.skipBytes(in.readableBytes());
    throw new ProtocolException(message);
  }
}
