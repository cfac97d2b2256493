package io.flexlog.sim;

/**
 * Something that acts in a {@link SimWorld} besides its data-path operations, on the world's
 * network, clock and random numbers (the consumer group of {@link GroupSimulationTest}): it takes a
 * share of the steps, checks its own invariants as it goes, and once the world is healed must
 * become live too.
 */
interface SimGuest {
  /** Of every 100 steps, how many are the guest's. */
  int sharePercent();

  /** One random event of the guest. */
  void event();

  /** Once the world is healed and live: the guest becomes live within a bound, or fails. */
  void healAndCheck();

  /** The test that replays a seed of this guest. */
  String testName();
}
