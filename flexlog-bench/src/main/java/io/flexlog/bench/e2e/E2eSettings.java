package io.flexlog.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The validated arguments of {@code flexlog bench e2e}.
 *
 * @param bootstrap the cluster to use; empty with {@code --embedded-tree}
 * @param colors the colors to measure, one after the other, in this order
 * @param producers producer clients per color
 * @param subscribers subscriber clients per color
 * @param recordBytes size of every appended record
 * @param ratePerProducer appends per second per producer, 0 for a closed loop
 * @param engine the embedded cluster's storage engine (auto, llpl, mapped)
 * @param pmBytes the embedded cluster's PM log capacity per replica
 */
public record E2eSettings(
    Optional<String> bootstrap,
    List<String> colors,
    int producers,
    int subscribers,
    int recordBytes,
    int ratePerProducer,
    Duration duration,
    Duration warmup,
    String engine,
    long pmBytes,
    Optional<Path> json) {

  public E2eSettings {
    colors = List.copyOf(colors);
  }

  public boolean embeddedTree() {
    return bootstrap.isEmpty();
  }

  /** How the load is offered, for the report. */
  String loadDescription() {
    return ratePerProducer == 0
        ? "closed loop, 1 append outstanding per producer"
        : ratePerProducer + " appends/s per producer (open loop)";
  }
}
