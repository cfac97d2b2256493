package io.flexlog.bench.ordering;

import java.time.Duration;
import java.util.List;

/**
 * The closed-loop clients of one side of the comparison (FlexLog's ordering layer or the Ratis
 * counter), driven through their phases by {@link PhasedRun}.
 */
interface OrderingLoad extends AutoCloseable {
  /**
   * Connects every client and waits until each has had one request answered, so that the warm-up
   * starts with a working system.
   *
   * @throws LoadFailure when a client cannot connect or its first request fails or times out
   */
  void prepare(Duration timeout) throws LoadFailure, InterruptedException;

  /** Every client issues its window of requests. */
  void start();

  /**
   * A private copy of every client's numbers, in client order.
   *
   * @throws LoadFailure when a client does not answer within the timeout
   */
  List<ClientStats> snapshot(Duration timeout) throws LoadFailure, InterruptedException;

  /** Disconnects every client; never throws. */
  @Override
  void close();
}
