package io.flexlog.bench.ordering;

import java.util.concurrent.ForkJoinPool;

/**
 * Gives the JVM's common {@link ForkJoinPool} at least two threads before anything starts it.
 *
 * <p>Why: the common pool has one thread less than the machine has CPUs, and with fewer than two
 * {@code CompletableFuture} runs every {@code *Async} stage without an executor on a new thread.
 * Ratis uses such stages on its request path, so on a 2-CPU machine it would start a thread per
 * request, a handicap it does not have on the machines it is built for. The pool is sized by a
 * system property read once, when the pool is first used; so this must run before any {@code
 * CompletableFuture} work, and a size the user chose is kept.
 */
final class CommonPool {
  static final String PARALLELISM_PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";
  static final int MIN_PARALLELISM = 2;

  private CommonPool() {}

  /**
   * Asks for {@link #MIN_PARALLELISM} threads unless the user set a size.
   *
   * @return the common pool's parallelism now in effect (smaller than asked when the pool had
   *     already started)
   */
  static int ensureParallelism() {
    if (System.getProperty(PARALLELISM_PROPERTY) == null
        && Runtime.getRuntime().availableProcessors() - 1 < MIN_PARALLELISM) {
      System.setProperty(PARALLELISM_PROPERTY, Integer.toString(MIN_PARALLELISM));
    }
    return ForkJoinPool.getCommonPoolParallelism();
  }
}
