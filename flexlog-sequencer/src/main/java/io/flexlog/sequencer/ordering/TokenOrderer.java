package io.flexlog.sequencer.ordering;

/**
 * Where the tokens of an ORDER_REQUEST go: the role of a hosted color ({@link OrderingRole}) or the
 * route that forwards a color up the tree ({@link ForwardRoute}). Both deduplicate by token.
 */
interface TokenOrderer {
  int colorId();

  /**
   * @return {@link OrderingRole#ACCEPTED} when the token joined this turn's batch, {@link
   *     OrderingRole#PENDING} when it is being ordered already, or the SN it was given (positive)
   */
  long offer(int slot, long tokenHi, long tokenLo);

  /**
   * Keeps {@code sn}, given to the token on this node by a route that is gone, so that a late
   * duplicate request gets it again (docs/architecture.md#sequencer-failover, "the tree heals"). A
   * token known here already keeps what it has.
   */
  void remember(long tokenHi, long tokenLo, long sn);
}
