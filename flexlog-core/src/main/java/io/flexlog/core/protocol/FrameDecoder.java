package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;

/**
 * Splits the byte stream into validated frames (see {@link FrameDescriptor}). Each emitted frame
 * starts at its length field; the next handler owns and releases it.
 *
 * <p>No byte is copied. A frame that lies whole inside one socket read is emitted as a retained
 * slice of that read's buffer; a frame that straddles reads, as a composite of retained slices of
 * the reads it spans. A cumulating decoder ({@code ByteToMessageDecoder}) would instead copy every
 * read that follows a read ending inside a frame, which on a stream of batch frames is nearly every
 * byte (docs/architecture.md#frame-decoding). A peer that announces a large frame and sends little
 * holds only what it sent.
 *
 * <p>On the first malformed frame it fires a {@link DecoderException} caused by a {@link
 * ProtocolException} and discards everything after it: the connection is beyond repair, and the
 * handler behind it is expected to answer with an ERROR and close the channel. Other connections
 * are unaffected. A frame cut short by the end of the stream is dropped without an error.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
  /** Reads a straddling frame takes as slices before the rest of it is copied. */
  static final int MAX_SLICES = 64;

  private final int maxFrameBytes;
  private boolean failed;

  /**
   * The bytes so far of a frame that a read ended inside, from its length field on, as slices of
   * the reads that brought them; or null.
   */
  private CompositeByteBuf partial;

  /** That frame's size, length field included, once its length field is complete; else 0. */
  private int partialSize;

  /** The reads that frame took as slices so far. */
  private int partialSlices;

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
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      if (failed || (partial != null && !fillPartial(ctx, in))) {
        return;
      }
      while (in.readableBytes() >= 4) {
        int size = frameSize(in.getInt(in.readerIndex()));
        if (in.readableBytes() < size) {
          break;
        }
        ByteBuf frame = in.retainedSlice(in.readerIndex(), size);
        in.skipBytes(size);
        emit(ctx, frame);
      }
      if (in.isReadable()) {
        startPartial(ctx.alloc(), in);
      }
    } finally {
      in.release();
    }
  }

  /**
   * Adds bytes of {@code in} to the straddling frame; emits it once complete.
   *
   * @return true when the frame was completed (the rest of {@code in} is new frames)
   */
  private boolean fillPartial(ChannelHandlerContext ctx, ByteBuf in) {
    if (partialSize == 0) { // the length field straddles too: read it across both
      int have = partial.readableBytes();
      if (have + in.readableBytes() < 4) {
        take(in, in.readableBytes());
        return false;
      }
      int length = 0;
      for (int i = 0; i < 4; i++) {
        byte b = i < have ? partial.getByte(i) : in.getByte(in.readerIndex() + i - have);
        length = length << 8 | (b & 0xFF);
      }
      partialSize = frameSize(length);
    }
    int need = partialSize - partial.readableBytes();
    int n = Math.min(need, in.readableBytes());
    take(in, n);
    if (n < need) {
      return false;
    }
    ByteBuf frame = partial;
    partial = null;
    partialSize = 0;
    partialSlices = 0;
    emit(ctx, frame);
    return true;
  }

  /** Keeps the rest of {@code in}, the start of a frame, until the reads that complete it. */
  private void startPartial(ByteBufAllocator alloc, ByteBuf in) {
    partial = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
    partialSize = in.readableBytes() >= 4 ? frameSize(in.getInt(in.readerIndex())) : 0;
    take(in, in.readableBytes());
  }

  /**
   * Moves {@code n} bytes of {@code in} into the straddling frame: as a slice, without a copy, for
   * its first {@link #MAX_SLICES} reads; a frame that keeps arriving in more reads than that (a
   * peer sending a few bytes at a time) is copied into one buffer from then on, so that it costs
   * memory in proportion to its bytes rather than one slice per read.
   */
  private void take(ByteBuf in, int n) {
    if (n == 0) {
      return;
    }
    if (partialSlices < MAX_SLICES) {
      partial.addComponent(true, in.retainedSlice(in.readerIndex(), n));
      if (++partialSlices == MAX_SLICES) {
        partial.consolidate(); // one buffer, grown by the writes below
      }
    } else {
      partial.writeBytes(in, in.readerIndex(), n);
    }
    in.skipBytes(n);
  }

  /** The size of a frame with this length field, length field included; fails if out of range. */
  private int frameSize(int length) {
    if (length < FrameDescriptor.LENGTH_FIELD_OVERHEAD || length > maxFrameBytes - 4) {
      fail("frame length " + length + " outside [12, " + (maxFrameBytes - 4) + "]");
    }
    return 4 + length;
  }

  private void emit(ChannelHandlerContext ctx, ByteBuf frame) {
    try {
      Frames.validate(frame);
    } catch (ProtocolException e) {
      frame.release();
      fail(e.getMessage());
    } catch (RuntimeException e) {
      frame.release();
      fail("undecodable frame: " + e);
    }
    ctx.fireChannelRead(frame);
  }

  private void fail(String message) {
    failed = true;
    releasePartial();
    throw new DecoderException(new ProtocolException(message));
  }

  private void releasePartial() {
    if (partial != null) {
      partial.release();
      partial = null;
      partialSize = 0;
      partialSlices = 0;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releasePartial(); // a frame cut short by the end of the stream
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releasePartial();
  }
}
