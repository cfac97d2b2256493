package io.flexlog.bench.ordering;

/** Where the sequencer roles of the tree run ({@code --placement}). */
public enum Placement implements CliValue {
  /**
   * One {@code SequencerNode} per color role; roles talk to their parent over loopback TCP with the
   * data-plane protocol, as separate sequencer processes would.
   */
  LOOPBACK,
  /**
   * One {@code SequencerNode} hosts every role of the tree; a request climbs the tree in memory.
   * The load clients still connect over loopback.
   */
  IN_PROCESS;
}
