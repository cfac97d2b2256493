package io.flexlog.sim;

import java.util.ArrayDeque;

/** The last events of a run, printed with the seed when an invariant breaks. */
final class SimTrace {
  private static final int KEEP = Integer.getInteger("flexlog.sim.trace", 400);

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
  }

  String lastEvents() {
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append("\n  ").append(line);
    }
    return out.toString();
  }
}
