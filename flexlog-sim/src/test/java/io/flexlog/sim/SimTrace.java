package io.flexlog.sim;

import java.util.ArrayDeque;

/** The last events of a run, printed with the seed when an invariant breaks. */
final class SimTrace {
  private static final int KEEP = Integer.getInteger("flexlog.sim.trace", 400);

  /**
   * A trace longer than the default is one asked for to analyse a seed: frames are then described
   * with their tokens and SNs ({@link SimLink#describe}), which costs too much for every seed.
   */
  static final boolean DETAILED = KEEP > 400;

  /** {@code -Dflexlog.sim.trace.live=true}: every event is also printed as it happens. */
  private static final boolean LIVE = Boolean.getBoolean("flexlog.sim.trace.live");

  private final ArrayDeque<String> lines = new ArrayDeque<>();
  private final SimClock clock;
  int step;

  SimTrace(SimClock clock) {
    this.clock = clock;
  }

  void note(String event) {
    if (lines.size() == KEEP) {
      lines.removeFirst();
    }
    lines.addLast(step + " t=" + clock.nowMs() + " " + event);
    if (LIVE) {
      System.out.println("TRACE " + step + " t=" + clock.nowMs() + " " + event);
    }
  }

  String lastEvents() {
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append("\n  ").append(line);
    }
    return out.toString();
  }
}
