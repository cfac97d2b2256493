package io.flexlog.sequencer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The node's Micrometer meters. Meters are created once (never on the hot path) and removed from
 * the registry on {@link #close}, so a restarted node in the same process reports fresh values.
 */
final class SequencerMetrics implements AutoCloseable {
  static final String SNS_ISSUED = "flexlog.sequencer.sns.issued";
  static final String BATCH_SIZE = "flexlog.sequencer.batch.size";
  static final String EPOCH = "flexlog.sequencer.epoch";
  static final String COLOR_TAG = "color";
  static final String NODE_TAG = "node";

  private final MeterRegistry registry;
  private final String nodeId;
  private final List<Meter> meters = new ArrayList<>();

  SequencerMetrics(MeterRegistry registry, int nodeId, IntSupplier epoch) {
    this.registry = registry;
    this.nodeId = Integer.toString(nodeId);
    meters.add(
        Gauge.builder(EPOCH, epoch, e -> e.getAsInt())
            .tag(NODE_TAG, this.nodeId)
            .description("current durable epoch of the sequencer node")
            .strongReference(true)
            .register(registry));
  }

  /** The meters of one hosted color. */
  RoleMeters forColor(String colorName) {
    Counter issued =
        Counter.builder(SNS_ISSUED)
            .tags(NODE_TAG, nodeId, COLOR_TAG, colorName)
            .description("sequence numbers assigned")
            .register(registry);
    DistributionSummary batchSize =
        DistributionSummary.builder(BATCH_SIZE)
            .tags(NODE_TAG, nodeId, COLOR_TAG, colorName)
            .description("new tokens ordered per event-loop turn")
            .register(registry);
    meters.add(issued);
    meters.add(batchSize);
    return new RoleMeters(issued, batchSize);
  }

  @Override
  public void close() {
    for (Meter meter : meters) {
      registry.remove(meter);
    }
    meters.clear();
  }

  /** Per-color meters, recorded once per published batch. */
  record RoleMeters(Counter issued, DistributionSummary batchSize) {
    void recordBatch(int assigned) {
      issued.increment(assigned);
      batchSize.record(assigned);
    }
  }
}
