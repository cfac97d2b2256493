package io.flexlog.bench.ordering;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The validated arguments of {@code flexlog bench ordering}.
 *
 * @param leaves branches under the root; 0 means the root alone, which the clients talk to directly
 * @param height levels from the root to the deepest sequencer, root included (1 with no leaves)
 * @param clients closed-loop load clients, spread round robin over the leaves
 * @param outstanding order requests each client keeps in flight
 * @param color which color the clients ask SNs of
 * @param placements the FlexLog variants to run, in this order; the first is the one compared
 * @param vsRatis whether to run the Ratis counter after FlexLog
 * @param ratisLog the Ratis peers' log, when {@code vsRatis}
 * @param ratisRequests how the Ratis clients batch SNs into requests, when {@code vsRatis}
 * @param clientThreads event-loop threads shared by the FlexLog load clients
 * @param json where to also write the results as JSON
 */
public record OrderingSettings(
    int leaves,
    int height,
    int clients,
    int outstanding,
    Duration duration,
    Duration warmup,
    OrderedColor color,
    List<Placement> placements,
    boolean vsRatis,
    RatisLog ratisLog,
    RatisRequests ratisRequests,
    int clientThreads,
    Optional<Path> json) {

  public OrderingSettings {
    placements = List.copyOf(placements);
  }
}
