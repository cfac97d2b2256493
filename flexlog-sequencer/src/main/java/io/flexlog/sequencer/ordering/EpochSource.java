package io.flexlog.sequencer.ordering;

/** Hands out durable epochs; called on counter overflow. */
@FunctionalInterface
public interface EpochSource {
  /** Makes the next epoch durable and returns it; throws if it cannot be made durable. */
  int advance();
}
