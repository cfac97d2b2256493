package io.flexlog.core.protocol;

import io.flexlog.core.testing.SeededRuns;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The {@link DecoderProperties} on seeded random inputs: every build tries the same few thousand
 * inputs of every frame type, whatever the fuzz corpus holds; a failure names its seed.
 */
class FrameDecoderRandomizedTest {
  private static final int ITERATIONS = 100;
  static final long[] SEEDS = SeededRuns.SEEDS;

  @ParameterizedTest
  @FieldSource("SEEDS")
  void validFramesSplitAtArbitraryPointsDecodeToExactlyThoseFrames(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random ->
            DecoderProperties.validFramesSplitAtArbitraryPointsDecodeToExactlyThoseFrames(
                Entropy.of(random)));
  }

  @ParameterizedTest
  @FieldSource("SEEDS")
  void validStreamCutShortEmitsTheCompleteFramesAndNoError(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random ->
            DecoderProperties.validStreamCutShortEmitsTheCompleteFramesAndNoError(
                Entropy.of(random)));
  }

  @ParameterizedTest
  @FieldSource("SEEDS")
  void arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random -> {
          Entropy entropy = Entropy.of(random);
          DecoderProperties.arbitraryBytesInArbitraryChunksYieldValidFramesOrOneProtocolException(
              entropy.bytes(600), DecoderProperties.cuts(entropy, 12));
        });
  }

  @ParameterizedTest
  @FieldSource("SEEDS")
  void framesWithValidHeaderAndRandomBodyYieldValidFramesOrOneProtocolException(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random ->
            DecoderProperties
                .framesWithValidHeaderAndRandomBodyYieldValidFramesOrOneProtocolException(
                    Entropy.of(random)));
  }

  @ParameterizedTest
  @FieldSource("SEEDS")
  void corruptedValidFramesYieldTheUntouchedPrefixThenValidFramesOrOneProtocolException(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random ->
            DecoderProperties
                .corruptedValidFramesYieldTheUntouchedPrefixThenValidFramesOrOneProtocolException(
                    Entropy.of(random)));
  }
}
