package io.flexlog.replica.atomic;

import java.util.ArrayList;
import java.util.List;

/**
 * What takes effect only once the staging entries written before it are durable: a STAGE_ACK, the
 * start of forwarding after END, the answers after DONE or ABORTED. Adding an action asks the
 * engine for an end of turn (a log flush, then {@link AtomicAppends#onFlushed()}), which runs them
 * in the order they were added.
 *
 * <p>Threading: confined to the replica's event loop.
 */
final class AfterFlush {
  private final Runnable requestEndOfTurn;
  private List<Runnable> actions = new ArrayList<>();

  /**
   * @param requestEndOfTurn asks for a log flush followed by {@link #runAll()}; idempotent within a
   *     turn
   */
  AfterFlush(Runnable requestEndOfTurn) {
    this.requestEndOfTurn = requestEndOfTurn;
  }

  void add(Runnable action) {
    actions.add(action);
    requestEndOfTurn.run();
  }

  /**
   * Runs the actions added before the flush that just completed; those they add wait for the next
   * one.
   *
   * @return whether any ran
   */
  boolean runAll() {
    if (actions.isEmpty()) {
      return false;
    }
    List<Runnable> due = actions;
    actions = new ArrayList<>();
    due.forEach(Runnable::run);
    return true;
  }
}
