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

/**
 * Whatever bytes arrive, in whatever chunks, {@link FrameDecoder} either emits frames whose every
 * accessor works or fails with a {@link ProtocolException} and then stays silent; it never throws
 * anything else and never leaks a buffer. Each property draws its input from an {@link Entropy}:
 * {@link FrameDecoderFuzzTest} runs them on Jazzer's input, {@link FrameDecoderRandomizedTest} on
 * seeded random values.
 */
final class DecoderProperties {
  private static final int MAX_FRAME_BYTES = 1024;
  private static final int SMALL_MAX_FRAME_BYTES = 256;
  private static final int MAX_CUT = 100_000;
  private static final int[] INTERESTING_INTS = {
    -1, 0, 1, 2, 3, 11, 12, 13, 16, 28, 0xFFFF, Integer.MAX_VALUE, Integer.MIN_VALUE
  };

  private DecoderProperties() {}

  static void validFramesSplitAtArbitraryPointsDecodeToExactlyThoseFrames(Entropy entropy) {
    List<WireMessage> messages = new WireMessageGenerator(entropy).messages(5);
    List<Integer> cuts = cuts(entropy, 12);
    List<byte[]> frames = messages.stream().map(DecoderProperties::encode).toList();
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

  static void validStreamCutShortEmitsTheCompleteFramesAndNoError(Entropy entropy) {
    List<WireMessage> messages = new WireMessageGenerator(entropy).messages(5);
    int cutAt = entropy.intBetween(0, MAX_CUT);
    List<Integer> cuts = cuts(entropy, 6);
    List<byte[]> frames = messages.stream().map(DecoderProperties::encode).toList();
    byte[] stream = concat(frames);
    byte[] truncated = Arrays.copyOf(stream, cutAt % (stream.length + 1));
    DecoderHarness harness = new DecoderHarness(MAX_FRAME_BYTES);

    writeInChunks(harness, truncated, cuts);
    List<String> leaks = harness.finishAndFindLeaks();

    assertThat(harness.events).containsExactlyElementsOf(intactPrefix(messages, truncated.length));
    assertThat(leaks).isEmpty();
  }

  static void arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(
      byte[] bytes, List<Integer> cuts) {
    DecoderHarness harness = new DecoderHarness(SMALL_MAX_FRAME_BYTES);

    writeInChunks(harness, bytes, cuts);

    assertDecoderContract(harness);
  }

  static void framesWithValidHeaderAndRandomBodyYieldValidFramesOrOneProtocolException(
      Entropy entropy) {
    List<byte[]> frames = headedFrames(entropy);
    List<Integer> cuts = cuts(entropy, 12);
    DecoderHarness harness = new DecoderHarness(SMALL_MAX_FRAME_BYTES);

    writeInChunks(harness, concat(frames), cuts);

    assertDecoderContract(harness);
  }

  static void corruptedValidFramesYieldTheUntouchedPrefixThenValidFramesOrOneProtocolException(
      Entropy entropy) {
    List<WireMessage> messages = new WireMessageGenerator(entropy).messages(5);
    int mutationCount = entropy.intBetween(1, 3);
    List<Mutation> mutations = new ArrayList<>();
    for (int i = 0; i < mutationCount; i++) {
      mutations.add(mutation(entropy));
    }
    List<Integer> cuts = cuts(entropy, 12);
    List<byte[]> frames = messages.stream().map(DecoderProperties::encode).toList();
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

  /** Up to {@code max} offsets at which to split a stream into chunks (taken modulo its length). */
  static List<Integer> cuts(Entropy entropy, int max) {
    int count = entropy.intBetween(0, max);
    List<Integer> cuts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      cuts.add(entropy.intBetween(0, MAX_CUT));
    }
    return cuts;
  }

  /**
   * The contract every input must satisfy: no exception but a {@link ProtocolException}, nothing
   * after it, every emitted frame readable and round-tripping, no buffer left unreleased.
   */
  private static void assertDecoderContract(DecoderHarness harness) {
    List<String> leaks = harness.finishAndFindLeaks();
    int firstFailure = -1;
    for (int i = 0; i < harness.events.size(); i++) {
      Event event = harness.events.get(i);
      if (event instanceof UnreadableFrame unreadable) {
        throw new AssertionError(
            "accessor failed on an emitted frame " + unreadable.bytes(), unreadable.cause());
      }
      if (event instanceof Frame frame) {
        assertRoundTrips(frame.message());
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
  }

  /**
   * A message read from an accepted frame encodes to a frame that reads back as the same message:
   * every accessor reads the field its encoder writes, whatever else the input bytes held.
   */
  private static void assertRoundTrips(WireMessage message) {
    ByteBuf again = message.encode(UnpooledByteBufAllocator.DEFAULT);
    try {
      assertThat(WireMessage.read(again)).as("re-encoded %s", message).isEqualTo(message);
    } finally {
      again.release();
    }
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

  /**
   * One to four frames with a correct length field, magic and version, any type (mostly known ones)
   * and a random body.
   */
  private static List<byte[]> headedFrames(Entropy entropy) {
    int count = entropy.intBetween(1, 4);
    List<byte[]> frames = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte type = frameType(entropy);
      long requestId = entropy.anyLong();
      byte[] body = entropy.bytes(96);
      if (entropy.intBetween(0, 1) == 0) {
        // Mostly-zero bodies make counts and lengths small, reaching deeper into validators.
        for (int b = 0; b < body.length; b++) {
          body[b] = (byte) Math.floorMod(body[b], 4);
        }
      }
      frames.add(
          ByteBuffer.allocate(FrameDescriptor.HEADER_LENGTH + body.length)
              .putInt(FrameDescriptor.LENGTH_FIELD_OVERHEAD + body.length)
              .putShort(FrameDescriptor.MAGIC)
              .put(FrameDescriptor.VERSION)
              .put(type)
              .putLong(requestId)
              .put(body)
              .array());
    }
    return frames;
  }

  /** A type byte, weighted like the frame families: 4:4:4:4:10 known ranges, 1 anything. */
  private static byte frameType(Entropy entropy) {
    int bucket = entropy.intBetween(0, 26);
    if (bucket < 16) {
      int[][] families = {{20, 25}, {30, 34}, {40, 42}, {50, 52}};
      int[] family = families[bucket / 4];
      return (byte) entropy.intBetween(family[0], family[1]);
    }
    return bucket < 26 ? (byte) entropy.intBetween(0, 17) : entropy.anyByte();
  }

  private static Mutation mutation(Entropy entropy) {
    int anywhere = entropy.intBetween(0, MAX_CUT);
    return switch (entropy.intBetween(0, 4)) {
      case 0 -> new Mutation.FlipByte(anywhere, entropy.intBetween(1, 255));
      case 1 -> new Mutation.OverwriteInt(anywhere, interestingInt(entropy));
      case 2 -> new Mutation.ShrinkFrame(anywhere, entropy.intBetween(1, 40));
      case 3 -> new Mutation.GrowFrame(anywhere, nonEmptyBytes(entropy, 40));
      default -> new Mutation.Truncate(anywhere);
    };
  }

  /** Half the time a value that often sits on a boundary of a length, count or id check. */
  private static int interestingInt(Entropy entropy) {
    return entropy.intBetween(0, 1) == 0
        ? INTERESTING_INTS[entropy.intBetween(0, INTERESTING_INTS.length - 1)]
        : entropy.anyInt();
  }

  private static byte[] nonEmptyBytes(Entropy entropy, int maxLength) {
    byte[] bytes = entropy.bytes(maxLength);
    return bytes.length > 0 ? bytes : new byte[] {entropy.anyByte()};
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
