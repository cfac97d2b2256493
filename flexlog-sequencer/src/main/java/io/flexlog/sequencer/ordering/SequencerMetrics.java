package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The node's Micrometer meters. Meters are created once (never on the hot path) and removed from
 * the registry on {@link #close}, so a restarted node in the same process reports fresh values.
 */
public final class SequencerMetrics implements AutoCloseable {
  public static final String SNS_ISSUED = "flexlog.sequencer.sns.issued";
  public static final String BATCH_SIZE = "flexlog.sequencer.batch.size";
  public static final String EPOCH = "flexlog.sequencer.epoch";
  public static final String FORWARDED_BATCHES = "flexlog.sequencer.forward.batches";
  public static final String AGGREGATION = "flexlog.sequencer.forward.aggregation";
  public static final String UPWARD_LATENCY = "flexlog.sequencer.forward.latency";
  public static final String REFUSED = "flexlog.sequencer.requests.refused";
  public static final String COLOR_TAG = "color";
  public static final String CODE_TAG = "code";
  public static final String NODE_TAG = "node";

  private final MeterRegistry registry;
  private final String nodeId;
  private final List<Meter> meters = new ArrayList<>();

  public SequencerMetrics(MeterRegistry registry, int nodeId, IntSupplier epoch) {
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

  /** The meters of a color this node forwards to a parent node; routes of one color share them. */
  RouteMeters forRoute(String colorName) {
    Counter forwarded =
        Counter.builder(FORWARDED_BATCHES)
            .tags(NODE_TAG, nodeId, COLOR_TAG, colorName)
            .description("range requests sent up the sequencer tree")
            .register(registry);
    DistributionSummary aggregation =
        DistributionSummary.builder(AGGREGATION)
            .tags(NODE_TAG, nodeId, COLOR_TAG, colorName)
            .description(
                "order requests (new tokens and child range requests) merged into one range"
                    + " request")
            .register(registry);
    Timer latency =
        Timer.builder(UPWARD_LATENCY)
            .tags(NODE_TAG, nodeId, COLOR_TAG, colorName)
            .description("from sending a range request up the tree to its answer")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    meters.add(forwarded);
    meters.add(aggregation);
    meters.add(latency);
    return new RouteMeters(forwarded, aggregation, latency);
  }

  /**
   * Counts a well-formed request refused with an ERROR frame (an unknown shard or color, a color
   * outside the shard's subtree), by error code. Refusals are rare, so the counter is looked up on
   * each one rather than kept per code.
   */
  void recordRefused(ErrorCode code) {
    Counter refused =
        Counter.builder(REFUSED)
            .tags(NODE_TAG, nodeId, CODE_TAG, code.name())
            .description("well-formed requests refused with an ERROR frame")
            .register(registry);
    if (!meters.contains(refused)) {
      meters.add(refused);
    }
    refused.increment();
  }

  @Override
  public void close() {
    for (Meter meter : meters) {
      registry.remove(meter);
    }
    meters.clear();
  }

  /** Per forwarded color, recorded once per range request and once per answer. */
  record RouteMeters(Counter forwarded, DistributionSummary aggregation, Timer latency) {
    void recordSent(int mergedRequests) {
      forwarded.increment();
      aggregation.record(mergedRequests);
    }

    void recordAnswered(long latencyNanos) {
      latency.record(latencyNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Per-color meters, recorded once per published batch. */
  record RoleMeters(Counter issued, DistributionSummary batchSize) {
    void recordBatch(int assigned) {
      issued.increment(assigned);
      batchSize.record(assigned);
    }
  }
}
