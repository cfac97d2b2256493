package io.flexlog.sequencer.ordering;

/**
 * A node's durable epoch: the current one (new roles start in it) and the next ones. {@link
 * io.flexlog.sequencer.EpochStore} keeps it in a file; the simulations keep it in memory that
 * survives their crashes.
 */
public interface NodeEpochs extends EpochSource {
  int current();
}
