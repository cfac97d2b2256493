package io.flexlog.bench.dedup;

import io.flexlog.core.util.TokenLongMap;
import io.flexlog.core.util.TokenWindow;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The replica's per-record work in its dedup window of committed tokens ({@code dedup.window},
 * default 2^20): for each new token a lookup that misses (is this append a retry?), then an insert
 * that forgets the oldest token once the window is full. Tokens come from a few producer sessions,
 * each with increasing sequences, as in a producer load. The window starts full, so every operation
 * is the steady state of a long run. {@code structure}: {@code rings} is the {@link TokenWindow}
 * replicas and sequencer roles use (a ring per session), {@code hash} the one global {@link
 * TokenLongMap} with a FIFO of insertions they used before. Run with {@code java -cp ...
 * org.openjdk.jmh.Main DedupWindow}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DedupWindowBenchmark {
  @Param({"65536", "1048576"})
  int window;

  @Param({"4"})
  int sessions;

  @Param({"rings", "hash"})
  String structure;

  private TokenLongMap hash;
  private TokenWindow rings;
  private long[] sessionIds;
  private long[] nextSequence;
  private int turn;
  private long sn = 1;

  @Setup
  public void setup() {
    if (structure.equals("rings")) {
      rings = new TokenWindow(window, 0L);
    } else {
      hash = new TokenLongMap(window, 0L, window);
    }
    sessionIds = new long[sessions];
    nextSequence = new long[sessions];
    java.util.SplittableRandom random = new java.util.SplittableRandom(42);
    for (int i = 0; i < sessions; i++) {
      sessionIds[i] = random.nextLong();
    }
    for (int i = 0; i < window; i++) {
      commitNext();
    }
  }

  private boolean commitNext() {
    int s = turn;
    turn = turn + 1 == sessions ? 0 : turn + 1;
    long session = sessionIds[s];
    long sequence = nextSequence[s]++;
    if (rings != null) {
      boolean retry = rings.get(session, sequence) != 0L;
      rings.put(session, sequence, sn++);
      return retry;
    }
    boolean retry = hash.get(session, sequence) != 0L;
    hash.put(session, sequence, sn++);
    return retry;
  }

  @Benchmark
  public boolean lookupThenCommit() {
    return commitNext();
  }
}
