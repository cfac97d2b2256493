package io.flexlog.bench.codec;

import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encode and decode of one APPEND frame: the header through {@link AppendDescriptor}, header and
 * payload copied into one pooled buffer (as one socket read delivers them), then split and
 * validated by {@link FrameDecoder} in an {@link EmbeddedChannel} and read through the descriptor.
 * Run with {@code java -cp ... org.openjdk.jmh.Main FrameCodec}; add {@code -prof gc} to check that
 * the path does not allocate per frame beyond the decoder's slice.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FrameCodecBenchmark {
  private static final int MAX_FRAME_BYTES = 1 << 24;

  @Param({"64", "1024", "16384"})
  int payloadBytes;

  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private EmbeddedChannel channel;
  private ByteBuf payload;
  private long requestId;

  @Setup
  public void setup() {
    channel = new EmbeddedChannel(new FrameDecoder(MAX_FRAME_BYTES));
    byte[] bytes = new byte[payloadBytes];
    new SplittableRandom(42).nextBytes(bytes);
    payload = alloc.directBuffer(payloadBytes).writeBytes(bytes);
  }

  @TearDown
  public void tearDown() {
    payload.release();
    channel.finishAndReleaseAll();
  }

  @Benchmark
  public long encodeDecodeAppend() {
    long id = ++requestId;
    ByteBuf header =
        AppendDescriptor.encodeHeader(alloc, id, 0x5E55_1011L, id, 3, 7, payload.readableBytes());
    ByteBuf wire = alloc.directBuffer(header.readableBytes() + payloadBytes);
    wire.writeBytes(header);
    header.release();
    wire.writeBytes(payload, payload.readerIndex(), payloadBytes);
    channel.writeInbound(wire);
    ByteBuf frame = channel.readInbound();
    try {
      return AppendDescriptor.tokenSequence(frame)
          + AppendDescriptor.colorId(frame)
          + AppendDescriptor.payload(frame).getByte(payloadBytes - 1);
    } finally {
      frame.release();
    }
  }
}
