package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.DecoderHarness.Event;
import io.flexlog.core.protocol.DecoderHarness.Failure;
import io.flexlog.core.protocol.DecoderHarness.Frame;
import io.flexlog.core.protocol.DecoderHarness.UnreadableFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.DecoderException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * Whatever bytes arrive, in whatever chunks, {@link FrameDecoder} either emits frames whose every
 * accessor works or fails with a {@link ProtocolException} and then stays silent; it never throws
 * anything else and never leaks a buffer.
 */
class FrameDecoderPropertyTest {
  private static final int MAX_FRAME_BYTES = 1024;

  @Property
  void validFramesSplitAtArbitraryPointsDecodeToExactlyThoseFrames(
      @ForAll("messageLists") List<WireMessage> messages,
      @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
    List<byte[]> frames = messages.stream().map(FrameDecoderPropertyTest::encode).toList();
    DecoderHarness harness = new DecoderHarness(MAX_FRAME_BYTES);

    writeInChunks(harness, concat(frames), cuts);

    List<Event> expected = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      expected.add(new Frame(new WireMessage.Bytes(frames.get(i)), messages.get(i)));
    }
    assertThat(harness.events).containsExactlyElementsOf(expected);
    assertThat(harness.finishAndFindLeaks()).isEmpty();
    assertThat(harness.events).hasSize(messages.size());
  }

  @Property
  void validStreamCutShortEmitsTheCompleteFramesAndNoError(
      @ForAll("messageLists") List<WireMessage> messages,
      @ForAll @IntRange(min = 0, max = 100_000) int cutAt,
      @ForAll @Size(max = 6) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
    List<byte[]> frames = messages.stream().map(FrameDecoderPropertyTest::encode).toList();
    byte[] stream = concat(frames);
    byte[] truncated = Arrays.copyOf(stream, cutAt % (stream.length + 1));
    DecoderHarness harness = new DecoderHarness(MAX_FRAME_BYTES);

    writeInChunks(harness, truncated, cuts);
    List<String> leaks = harness.finishAndFindLeaks();

    assertThat(harness.events).containsExactlyElementsOf(intactPrefix(messages, truncated.length));
    assertThat(leaks).isEmpty();
  }

  @Property
  void arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(
      @ForAll @Size(max = 600) byte[] bytes,
      @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
    DecoderHarness harness = new DecoderHarness(256);

    writeInChunks(harness, bytes, cuts);

    assertDecoderContract(harness);
  }

  @Property
  void framesWithValidHeaderAndRandomBodyYieldValidFramesOrOneProtocolException(
      @ForAll("headedFrames") List<byte[]> frames,
      @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
    DecoderHarness harness = new DecoderHarness(256);

    writeInChunks(harness, concat(frames), cuts);

    assertDecoderContract(harness);
  }

  @Property
  void corruptedValidFramesYieldTheUntouchedPrefixThenValidFramesOrOneProtocolException(
      @ForAll("messageLists") List<WireMessage> messages,
      @ForAll @Size(min = 1, max = 3) List<@From("mutations") Mutation> mutations,
      @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 100_000) Integer> cuts) {
    List<byte[]> frames = messages.stream().map(FrameDecoderPropertyTest::encode).toList();
    Corrupted corrupted = new Corrupted(concat(frames), frameStarts(frames), Integer.MAX_VALUE);
    for (Mutation mutation : mutations) {
      corrupted = mutation.apply(corrupted);
    }
    DecoderHarness harness = new DecoderHarness(MAX_FRAME_BYTES);

    writeInChunks(harness, corrupted.bytes(), cuts);

    assertDecoderContract(harness);
    List<Event> untouched = intactPrefix(messages, corrupted.firstChange());
    assertThat(harness.events.subList(0, Math.min(untouched.size(), harness.events.size())))
        .containsExactlyElementsOf(untouched);
  }

  /** The contract every input must satisfy; also records what the decoder did, for statistics. */
  private static void assertDecoderContract(DecoderHarness harness) {
    List<String> leaks = harness.finishAndFindLeaks();
    int firstFailure = -1;
    for (int i = 0; i < harness.events.size(); i++) {
      Event event = harness.events.get(i);
      if (event instanceof UnreadableFrame unreadable) {
        throw new AssertionError(
            "accessor failed on an emitted frame " + unreadable.bytes(), unreadable.cause());
      }
      if (event instanceof Failure failure) {
        assertIsProtocolException(failure.cause());
        if (firstFailure < 0) {
          firstFailure = i;
        }
      }
    }
    if (firstFailure >= 0) {
      assertThat(harness.events.subList(firstFailure + 1, harness.events.size()))
          .as("events after the first ProtocolException")
          .isEmpty();
    }
    assertThat(leaks).as("unreleased buffers").isEmpty();
    Statistics.label("outcome")
        .collect(
            firstFailure >= 0
                ? "protocol error"
                : harness.events.isEmpty() ? "nothing (incomplete)" : "frames only");
    Statistics.label("frames emitted").collect(Math.min(harness.frames().size(), 3));
  }

  private static void assertIsProtocolException(Throwable cause) {
    Throwable unwrapped = cause instanceof DecoderException ? cause.getCause() : cause;
    if (!(unwrapped instanceof ProtocolException)) {
      throw new AssertionError("expected a ProtocolException, got " + cause, cause);
    }
  }

  /** The frames that lie entirely before byte offset {@code limit} of the encoded stream. */
  private static List<Event> intactPrefix(List<WireMessage> messages, int limit) {
    List<Event> intact = new ArrayList<>();
    int end = 0;
    for (WireMessage message : messages) {
      byte[] frame = encode(message);
      end += frame.length;
      if (end > limit) {
        break;
      }
      intact.add(new Frame(new WireMessage.Bytes(frame), message));
    }
    return intact;
  }

  private static void writeInChunks(DecoderHarness harness, byte[] bytes, List<Integer> cuts) {
    TreeSet<Integer> points = new TreeSet<>();
    for (int cut : cuts) {
      points.add(cut % (bytes.length + 1));
    }
    points.add(bytes.length);
    int from = 0;
    for (int to : points) {
      if (to > from) {
        harness.write(Arrays.copyOfRange(bytes, from, to));
      }
      from = to;
    }
  }

  static byte[] encode(WireMessage message) {
    ByteBuf buf = message.encode(UnpooledByteBufAllocator.DEFAULT);
    try {
      return ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  private static byte[] concat(List<byte[]> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    parts.forEach(out::writeBytes);
    return out.toByteArray();
  }

  private static List<Integer> frameStarts(List<byte[]> frames) {
    List<Integer> starts = new ArrayList<>();
    int offset = 0;
    for (byte[] frame : frames) {
      starts.add(offset);
      offset += frame.length;
    }
    return starts;
  }

  @Provide
  Arbitrary<List<WireMessage>> messageLists() {
    return WireMessageArbitraries.messages().list().ofMinSize(1).ofMaxSize(5);
  }

  /** Frames with a correct length field, magic and version, any type and a random body. */
  @Provide
  Arbitrary<List<byte[]>> headedFrames() {
    Arbitrary<Byte> types =
        Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.bytes().between((byte) 20, (byte) 25)),
            Tuple.of(4, Arbitraries.bytes().between((byte) 30, (byte) 34)),
            Tuple.of(4, Arbitraries.bytes().between((byte) 40, (byte) 42)),
            Tuple.of(4, Arbitraries.bytes().between((byte) 50, (byte) 52)),
            Tuple.of(10, Arbitraries.bytes().between((byte) 0, (byte) 17)),
            Tuple.of(1, Arbitraries.bytes()));
    Arbitrary<byte[]> bodies =
        Arbitraries.oneOf(
            Arbitraries.bytes().array(byte[].class).ofMaxSize(96),
            // Mostly-zero bodies make counts and lengths small, reaching deeper into validators.
            Arbitraries.bytes().between((byte) 0, (byte) 3).array(byte[].class).ofMaxSize(96));
    return Combinators.combine(types, Arbitraries.longs(), bodies)
        .as(
            (type, requestId, body) ->
                ByteBuffer.allocate(FrameDescriptor.HEADER_LENGTH + body.length)
                    .putInt(FrameDescriptor.LENGTH_FIELD_OVERHEAD + body.length)
                    .putShort(FrameDescriptor.MAGIC)
                    .put(FrameDescriptor.VERSION)
                    .put(type)
                    .putLong(requestId)
                    .put(body)
                    .array())
        .list()
        .ofMinSize(1)
        .ofMaxSize(4);
  }

  @Provide
  Arbitrary<Mutation> mutations() {
    Arbitrary<Integer> anywhere = Arbitraries.integers().between(0, 100_000);
    Arbitrary<Integer> interestingInts =
        Arbitraries.oneOf(
            Arbitraries.of(
                -1, 0, 1, 2, 3, 11, 12, 13, 16, 28, 0xFFFF, Integer.MAX_VALUE, Integer.MIN_VALUE),
            Arbitraries.integers());
    return Arbitraries.oneOf(
        Combinators.combine(anywhere, Arbitraries.integers().between(1, 255))
            .as(Mutation.FlipByte::new),
        Combinators.combine(anywhere, interestingInts).as(Mutation.OverwriteInt::new),
        Combinators.combine(anywhere, Arbitraries.integers().between(1, 40))
            .as(Mutation.ShrinkFrame::new),
        Combinators.combine(
                anywhere, Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(40))
            .as(Mutation.GrowFrame::new),
        anywhere.map(Mutation.Truncate::new));
  }

  /**
   * A stream being corrupted: its bytes, where each original frame starts, and the first offset
   * whose byte may differ from the valid stream.
   */
  record Corrupted(byte[] bytes, List<Integer> frameStarts, int firstChange) {
    Corrupted changedAt(byte[] newBytes, int offset) {
      return new Corrupted(newBytes, frameStarts, Math.min(firstChange, offset));
    }

    int offset(int position) {
      return position % Math.max(1, bytes.length);
    }

    int frameStart(int index) {
      return frameStarts.get(index % frameStarts.size());
    }
  }

  /** One way to damage a valid stream of frames. */
  sealed interface Mutation {
    Corrupted apply(Corrupted in);

    /** XORs one byte with a non-zero mask. */
    record FlipByte(int position, int mask) implements Mutation {
      @Override
      public Corrupted apply(Corrupted in) {
        if (in.bytes().length == 0) {
          return in;
        }
        byte[] bytes = in.bytes().clone();
        int at = in.offset(position);
        bytes[at] ^= (byte) mask;
        return in.changedAt(bytes, at);
      }
    }

    /** Overwrites four bytes, hitting length, count and id fields as often as payload. */
    record OverwriteInt(int position, int value) implements Mutation {
      @Override
      public Corrupted apply(Corrupted in) {
        if (in.bytes().length < 4) {
          return in;
        }
        byte[] bytes = in.bytes().clone();
        int at = position % (bytes.length - 3);
        ByteBuffer.wrap(bytes).putInt(at, value);
        return in.changedAt(bytes, at);
      }
    }

    /** Cuts bytes off the end of one frame's body and lowers its length field to match. */
    record ShrinkFrame(int frame, int by) implements Mutation {
      @Override
      public Corrupted apply(Corrupted in) {
        return resize(in, frame, -by, new byte[0]);
      }
    }

    /** Appends bytes to one frame's body and raises its length field to match. */
    record GrowFrame(int frame, byte[] extra) implements Mutation {
      @Override
      public Corrupted apply(Corrupted in) {
        return resize(in, frame, extra.length, extra);
      }

      @Override
      public String toString() {
        return "GrowFrame[frame=" + frame + ", extra=" + ByteBufUtil.hexDump(extra) + "]";
      }
    }

    /** Ends the stream early. */
    record Truncate(int position) implements Mutation {
      @Override
      public Corrupted apply(Corrupted in) {
        int at = position % (in.bytes().length + 1);
        return in.changedAt(Arrays.copyOf(in.bytes(), at), at);
      }
    }

    private static Corrupted resize(Corrupted in, int frameIndex, int delta, byte[] extra) {
      int start = in.frameStart(frameIndex);
      if (start + 4 > in.bytes().length) {
        return in;
      }
      ByteBuffer stream = ByteBuffer.wrap(in.bytes());
      int length = stream.getInt(start);
      long frameEnd = start + 4L + length;
      if (length < 0 || frameEnd > in.bytes().length || length + delta < 0) {
        return in;
      }
      int end = (int) frameEnd;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(in.bytes(), 0, start);
      out.writeBytes(ByteBuffer.allocate(4).putInt(length + delta).array());
      out.write(in.bytes(), start + 4, Math.max(0, length + Math.min(delta, 0)));
      out.writeBytes(extra);
      out.write(in.bytes(), end, in.bytes().length - end);
      return in.changedAt(out.toByteArray(), start);
    }
  }
}
