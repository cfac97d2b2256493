package io.flexlog.core.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.record.RecordFields;
import io.flexlog.core.record.RecordFormatDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The {@link DecoderProperties} as Jazzer fuzz targets. A plain build replays the seed inputs under
 * {@code src/test/resources/io/flexlog/core/protocol/FrameDecoderFuzzTestInputs/<method>/}; {@code
 * JAZZER_FUZZ=1} fuzzes one target (docs/testing.md).
 */
class FrameDecoderFuzzTest {

  /**
   * The input is the byte stream itself, so golden frames are seeds as they are. It is written in
   * one chunk, one byte at a time, and at cuts derived from its content.
   */
  @FuzzTest
  void anyBytesInAnyChunksYieldValidFramesOrOneProtocolException(byte[] stream) {
    DecoderProperties.arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(
        stream, List.of());
    List<Integer> everyByte = new ArrayList<>(stream.length);
    for (int i = 1; i < stream.length; i++) {
      everyByte.add(i);
    }
    DecoderProperties.arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(
        stream, everyByte);
    DecoderProperties.arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(
        stream, DecoderProperties.cuts(Entropy.of(new Random(Arrays.hashCode(stream))), 12));
  }

  @FuzzTest
  void validFramesSplitAtAnyPointsDecodeToExactlyThoseFrames(FuzzedDataProvider data) {
    DecoderProperties.validFramesSplitAtArbitraryPointsDecodeToExactlyThoseFrames(Entropy.of(data));
  }

  @FuzzTest
  void validStreamCutShortEmitsTheCompleteFramesAndNoError(FuzzedDataProvider data) {
    DecoderProperties.validStreamCutShortEmitsTheCompleteFramesAndNoError(Entropy.of(data));
  }

  @FuzzTest
  void framesWithValidHeaderAndAnyBodyYieldValidFramesOrOneProtocolException(
      FuzzedDataProvider data) {
    DecoderProperties.framesWithValidHeaderAndRandomBodyYieldValidFramesOrOneProtocolException(
        Entropy.of(data));
  }

  @FuzzTest
  void corruptedValidFramesYieldTheUntouchedPrefixThenValidFramesOrOneProtocolException(
      FuzzedDataProvider data) {
    DecoderProperties
        .corruptedValidFramesYieldTheUntouchedPrefixThenValidFramesOrOneProtocolException(
            Entropy.of(data));
  }

  /**
   * Any body behind a valid APPEND_BATCH header is refused with a {@link ProtocolException} or
   * yields records whose payloads lie inside the frame; a payload in record format 1 reads into
   * fields that lie inside the payload, or is refused with a {@link ProtocolException}.
   */
  @FuzzTest
  void appendBatchWithAnyBodyYieldsRecordsInsideTheFrameOrOneProtocolException(byte[] body) {
    ByteBuf frame =
        FrameDescriptor.allocate(
            Unpooled.buffer().alloc(), MessageType.APPEND_BATCH, 1L, body.length);
    frame.writeBytes(body);
    try {
      Frames.validate(frame);
    } catch (ProtocolException refused) {
      frame.release();
      return;
    }
    try {
      int at = AppendBatchDescriptor.payloadsStart(frame);
      for (int i = 0; i < AppendBatchDescriptor.count(frame); i++) {
        int length = AppendBatchDescriptor.payloadLength(frame, i);
        if (RecordFormatDescriptor.isFormatted(frame, at, length)) {
          readRecord(frame, at, length);
        }
        at += length;
      }
      if (at != frame.writerIndex()) {
        throw new AssertionError("payloads end at " + at + ", frame at " + frame.writerIndex());
      }
    } finally {
      frame.release();
    }
  }

  private static void readRecord(ByteBuf frame, int at, int length) {
    try {
      RecordFields fields = RecordFormatDescriptor.read(frame, at, length);
      if (fields.valueOffset() + fields.storedValueLength() != at + length) {
        throw new AssertionError("value outside the record: " + fields);
      }
    } catch (ProtocolException malformed) {
      // a malformed record is refused by name, which is what the reader promises
    }
  }
}
