package io.flexlog.core.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import java.util.Random;

/**
 * Where the decoder properties draw their values from: Jazzer's fuzzer input when fuzzing or
 * replaying the corpus, a seeded {@link Random} in the randomized tests. Ranges are inclusive.
 */
interface Entropy {
  int anyInt();

  long anyLong();

  byte anyByte();

  int intBetween(int min, int max);

  long longBetween(long min, long max);

  byte[] bytes(int maxLength);

  static Entropy of(FuzzedDataProvider data) {
    return new Entropy() {
      @Override
      public int anyInt() {
        return data.consumeInt();
      }

      @Override
      public long anyLong() {
        return data.consumeLong();
      }

      @Override
      public byte anyByte() {
        return data.consumeByte();
      }

      @Override
      public int intBetween(int min, int max) {
        return data.consumeInt(min, max);
      }

      @Override
      public long longBetween(long min, long max) {
        return data.consumeLong(min, max);
      }

      @Override
      public byte[] bytes(int maxLength) {
        return data.consumeBytes(maxLength);
      }
    };
  }

  /** Values from {@code random}; one int or long in eight is an edge value (0, ±1, MIN, MAX). */
  static Entropy of(Random random) {
    return new Entropy() {
      private static final long[] EDGES = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE};
      private static final int[] INT_EDGES = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE};

      @Override
      public int anyInt() {
        return random.nextInt(8) == 0
            ? INT_EDGES[random.nextInt(INT_EDGES.length)]
            : random.nextInt();
      }

      @Override
      public long anyLong() {
        return random.nextInt(8) == 0 ? EDGES[random.nextInt(EDGES.length)] : random.nextLong();
      }

      @Override
      public byte anyByte() {
        return (byte) random.nextInt();
      }

      @Override
      public int intBetween(int min, int max) {
        return (int) longBetween(min, max);
      }

      @Override
      public long longBetween(long min, long max) {
        if (random.nextInt(8) == 0) {
          return random.nextBoolean() ? min : max;
        }
        long span = max - min + 1;
        if (span > 0) {
          return min + Math.floorMod(random.nextLong(), span);
        }
        long value = random.nextLong();
        while (value < min || value > max) {
          value = random.nextLong();
        }
        return value;
      }

      @Override
      public byte[] bytes(int maxLength) {
        byte[] bytes = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(bytes);
        return bytes;
      }
    };
  }
}
