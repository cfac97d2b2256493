package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The decoder copies no byte: a frame whole inside one read is a slice of that read's memory, a
 * frame straddling reads is a composite of slices of them (docs/architecture.md#frame-decoding).
 */
class FrameDecoderZeroCopyTest {
  private final EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(1 << 20));
  private final List<ByteBuf> frames = new ArrayList<>();

  @AfterEach
  void release() {
    frames.forEach(ByteBuf::release);
    channel.finishAndReleaseAll();
  }

  @Test
  void aFrameWholeInsideOneReadIsASliceOfThatReadsMemory() {
    byte[] first = DecoderProperties.encode(new WireMessage.Read(1, 2, 3));
    byte[] second = DecoderProperties.encode(new WireMessage.Watermark(7, 8));
    ByteBuf read = Unpooled.directBuffer(first.length + second.length).writeBytes(first);
    read.writeBytes(second);
    long base = read.memoryAddress();

    channel.writeInbound(read);
    drain();

    assertThat(frames).hasSize(2);
    assertThat(frames.get(0).memoryAddress()).isEqualTo(base);
    assertThat(frames.get(1).memoryAddress()).isEqualTo(base + first.length);
    assertThat(ByteBufUtil.getBytes(frames.get(1))).isEqualTo(second);
  }

  @Test
  void aFrameStraddlingReadsIsACompositeOfSlicesOfThoseReads() {
    byte[] frame = DecoderProperties.encode(new WireMessage.Read(4, 5, 6));
    ByteBuf[] reads = {
      Unpooled.directBuffer().writeBytes(frame, 0, 2), // inside the length field
      Unpooled.directBuffer().writeBytes(frame, 2, 9),
      Unpooled.directBuffer().writeBytes(frame, 11, frame.length - 11)
    };
    long[] addresses = Arrays.stream(reads).mapToLong(ByteBuf::memoryAddress).toArray();

    for (ByteBuf read : reads) {
      channel.writeInbound(read);
    }
    drain();

    assertThat(frames).hasSize(1);
    ByteBuf decoded = frames.get(0);
    assertThat(ByteBufUtil.getBytes(decoded)).isEqualTo(frame);
    CompositeByteBuf composite =
        decoded instanceof CompositeByteBuf c ? c : (CompositeByteBuf) decoded.unwrap();
    assertThat(composite.numComponents()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(composite.internalComponent(i).memoryAddress()).isEqualTo(addresses[i]);
    }
    decoded.release();
    frames.clear();
    assertThat(reads).allSatisfy(read -> assertThat(read.refCnt()).isZero());
  }

  @Test
  void aFrameArrivingInMoreReadsThanTheSliceLimitIsCopiedFromThenOnAndDecodesWhole() {
    byte[] payload = new byte[500];
    new java.util.Random(3).nextBytes(payload);
    byte[] frame =
        DecoderProperties.encode(
            new WireMessage.Append(9, 10, 11, 1, 2, new WireMessage.Bytes(payload)));
    List<ByteBuf> reads = new ArrayList<>();
    for (byte b : frame) {
      ByteBuf read = Unpooled.directBuffer(1).writeByte(b);
      reads.add(read);
      channel.writeInbound(read);
    }
    drain();

    assertThat(frame.length).isGreaterThan(FrameDecoder.MAX_SLICES * 2);
    assertThat(frames).hasSize(1);
    assertThat(ByteBufUtil.getBytes(frames.get(0))).isEqualTo(frame);
    CompositeByteBuf composite =
        frames.get(0) instanceof CompositeByteBuf c ? c : (CompositeByteBuf) frames.get(0).unwrap();
    assertThat(composite.numComponents()).isLessThan(FrameDecoder.MAX_SLICES);
    assertThat(reads).allSatisfy(read -> assertThat(read.refCnt()).isZero());
  }

  @Test
  void aPeerAnnouncingAHugeFrameHoldsOnlyWhatItSent() {
    ByteBuf header = Unpooled.directBuffer().writeInt((1 << 20) - 4).writeShort(0xF10C);

    channel.writeInbound(header);
    channel.pipeline().fireChannelInactive();

    assertThat(header.refCnt()).isZero(); // the straddling frame's slice was let go
    drain();
    assertThat(frames).isEmpty();
  }

  private void drain() {
    for (Object o; (o = channel.readInbound()) != null; ) {
      frames.add((ByteBuf) o);
    }
  }
}
