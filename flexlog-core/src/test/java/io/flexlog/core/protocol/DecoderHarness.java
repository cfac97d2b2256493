package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link FrameDecoder} in an {@link EmbeddedChannel}, followed by a handler that reads every
 * accessor of each emitted frame, releases it, and records what happened in order.
 */
final class DecoderHarness implements AutoCloseable {

  /** Something the pipeline delivered to the last handler. */
  sealed interface Event {}

  /** A frame: its exact bytes and what its accessors returned. */
  record Frame(WireMessage.Bytes bytes, WireMessage message) implements Event {}

  /** An exception fired down the pipeline. */
  record Failure(Throwable cause) implements Event {}

  /** An accessor threw on a frame the decoder had emitted as valid: always a bug. */
  record UnreadableFrame(WireMessage.Bytes bytes, Throwable cause) implements Event {}

  final TrackingAllocator allocator = new TrackingAllocator();
  final List<Event> events = new ArrayList<>();
  final EmbeddedChannel channel;

  DecoderHarness(int maxFrameBytes) {
    channel = new EmbeddedChannel();
    channel.config().setAllocator(allocator);
    channel.pipeline().addLast(new FrameDecoder(maxFrameBytes), new RecordingHandler());
  }

  /** Writes {@code bytes} as one inbound read; exceptions end up in {@link #events}. */
  void write(byte[] bytes) {
    write(Unpooled.wrappedBuffer(bytes));
  }

  void write(ByteBuf chunk) {
    allocator.track(chunk);
    try {
      channel.writeInbound(chunk);
    } catch (Throwable t) {
      events.add(new Failure(t));
    }
  }

  List<Frame> frames() {
    return events.stream().filter(Frame.class::isInstance).map(Frame.class::cast).toList();
  }

  List<Throwable> failures() {
    return events.stream()
        .filter(Failure.class::isInstance)
        .map(e -> ((Failure) e).cause())
        .toList();
  }

  /** Closes the channel (the decoder sees end of stream) and returns unreleased buffers. */
  List<String> finishAndFindLeaks() {
    try {
      channel.finishAndReleaseAll();
    } catch (Throwable t) {
      events.add(new Failure(t));
    }
    return allocator.unreleased();
  }

  @Override
  public void close() {
    channel.finishAndReleaseAll();
  }

  private final class RecordingHandler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      WireMessage.Bytes bytes = new WireMessage.Bytes(ByteBufUtil.getBytes(frame));
      try {
        events.add(new Frame(bytes, WireMessage.read(frame)));
      } catch (Throwable t) {
        events.add(new UnreadableFrame(bytes, t));
      } finally {
        frame.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      events.add(new Failure(cause));
    }
  }
}
