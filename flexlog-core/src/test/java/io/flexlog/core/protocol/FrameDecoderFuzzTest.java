package io.flexlog.core.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
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
}
