package io.flexlog.replica.replication;

import io.flexlog.core.model.Color;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The replica's per-color counters and its latency histograms (docs/operations.md, "Metrics").
 * Meters of a color are created the first time the color is seen, then found by color id without
 * allocating.
 *
 * <p>Not thread-safe: owned by the replica's event-loop thread.
 */
final class ColorMeters {
  static final String COLOR_APPENDS = "flexlog.replica.color.appends";
  static final String COLOR_BYTES = "flexlog.replica.color.bytes";
  static final String COLOR_READS = "flexlog.replica.color.reads";
  static final String APPEND_LATENCY = "flexlog.replica.append.latency";
  static final String ORDER_LATENCY = "flexlog.replica.order.latency";
  static final String READ_LATENCY = "flexlog.replica.read.latency";

  private final MeterRegistry registry;
  private final String node;
  private final IntFunction<String> colorName;
  private final Int2ObjectHashMap<Counter[]> byColor = new Int2ObjectHashMap<>();
  private final Timer appendLatency;
  private final Timer orderLatency;
  private final Timer readLatency;

  /**
   * @param colorName the name of a color id, for the {@code color} tag
   */
  ColorMeters(MeterRegistry registry, String node, IntFunction<String> colorName) {
    this.registry = registry;
    this.node = node;
    this.colorName = colorName;
    appendLatency =
        histogram(APPEND_LATENCY, "from an APPEND's arrival to its acknowledgement (durable here)");
    orderLatency =
        histogram(
            ORDER_LATENCY,
            "from an APPEND's arrival to its SN's arrival from the sequencer (the ordering step)");
    readLatency =
        histogram(READ_LATENCY, "from a READ's arrival to its answer (held reads included)");
  }

  private Timer histogram(String name, String description) {
    return Timer.builder(name)
        .tag("node", node)
        .description(description)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(1_000))
        .maximumExpectedValue(Duration.ofSeconds(30))
        .register(registry);
  }

  /** An append of {@code bytes} accepted for {@code colorId} (duplicates not counted). */
  void appended(int colorId, int bytes) {
    Counter[] meters = meters(colorId);
    meters[0].increment();
    meters[1].increment(bytes);
  }

  /** A READ of {@code colorId} answered with its record. */
  void read(int colorId) {
    meters(colorId)[2].increment();
  }

  void appendLatency(long nanos) {
    appendLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  void orderLatency(long nanos) {
    orderLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  void readLatency(long nanos) {
    readLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  private Counter[] meters(int colorId) {
    Counter[] meters = byColor.get(colorId);
    if (meters == null) {
      String color = colorName.apply(colorId);
      meters =
          new Counter[] {
            counter(COLOR_APPENDS, color, "records appended to the color here (retries excluded)"),
            counter(COLOR_BYTES, color, "payload bytes appended to the color here"),
            counter(COLOR_READS, color, "READs of the color answered with a record")
          };
      byColor.put(colorId, meters);
    }
    return meters;
  }

  private Counter counter(String name, String color, String description) {
    return Counter.builder(name)
        .tag("node", node)
        .tag("color", color)
        .description(description)
        .register(registry);
  }

  /** The {@code color} tag of a color id: its name, or {@code id-N} if the topology lacks it. */
  static String name(io.flexlog.core.model.Topology topology, int colorId) {
    return topology.color(colorId).map(Color::name).orElse("id-" + colorId);
  }
}
