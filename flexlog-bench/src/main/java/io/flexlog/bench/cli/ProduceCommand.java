package io.flexlog.bench.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code flexlog bench produce}: one {@code FlexLogProducer} sending {@code --num-records} records
 * of {@code --record-size} bytes, shaped like Kafka's {@code ProducerPerformance} so the two can be
 * run side by side with the same arguments (flexlog-bench/README.md).
 */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "One FlexLogProducer sends records as fast as allowed (Kafka's ProducerPerformance shape);"
          + " prints records/s, MB/s and send-to-acknowledgement latency (avg, max, p50, p95,"
          + " p99, p99.9).",
      "Exit codes: 0 done, 1 the run failed (a record failed, or the cluster could not be used),"
          + " 2 bad arguments."
    })
public final class ProduceCommand extends BenchmarkCommand<ProduceSettings> {
  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:7070",
      description = "Comma-separated host:port of any cluster nodes (default: ${DEFAULT-VALUE}).")
  private String bootstrap;

  @Option(
      names = {"--color", "--topic"},
      paramLabel = "NAME",
      defaultValue = "global",
      description = "Color to send to (default: ${DEFAULT-VALUE}).")
  private String color;

  @Option(
      names = "--num-records",
      paramLabel = "N",
      required = true,
      description = "Records to send, warm-up included.")
  private long numRecords;

  @Option(
      names = "--warmup-records",
      paramLabel = "N",
      defaultValue = "0",
      description = "The first N records are not counted (default: ${DEFAULT-VALUE}).")
  private long warmupRecords;

  @Option(
      names = "--record-size",
      paramLabel = "B",
      required = true,
      description = "Value size of every record, in bytes (>= 1).")
  private int recordSize;

  @Option(
      names = "--throughput",
      paramLabel = "R",
      defaultValue = "-1",
      description = "Records per second to aim at; -1 for no limit (default: ${DEFAULT-VALUE}).")
  private long throughput;

  @Option(
      names = "--producer-props",
      paramLabel = "KEY=VALUE",
      arity = "1..*",
      description = "Producer properties, e.g. linger.ms=5 batch.size=65536 compression.type=lz4.")
  private List<String> producerProps = List.of();

  public ProduceCommand() {
    this(ProduceBenchmark::run);
  }

  ProduceCommand(Runner<ProduceSettings> runner) {
    super(runner);
  }

  @Override
  protected ProduceSettings settings() {
    checkBootstrap(bootstrap);
    if (color.isBlank()) {
      throw bad("--color must not be blank");
    }
    if (numRecords < 1) {
      throw bad("--num-records must be at least 1, got " + numRecords);
    }
    checkRange("--warmup-records", warmupRecords, 0, numRecords - 1);
    if (recordSize < 1) {
      throw bad("--record-size must be at least 1, got " + recordSize);
    }
    if (throughput == 0 || throughput < -1) {
      throw bad("--throughput must be positive or -1 (no limit), got " + throughput);
    }
    Map<String, String> props = new LinkedHashMap<>();
    for (String prop : producerProps) {
      int eq = prop.indexOf('=');
      if (eq < 1) {
        throw bad("--producer-props: '" + prop + "' is not KEY=VALUE");
      }
      props.put(prop.substring(0, eq).trim(), prop.substring(eq + 1).trim());
    }
    if (props.containsKey("bootstrap.servers")) {
      throw bad("--producer-props: give bootstrap.servers with --bootstrap");
    }
    return new ProduceSettings(
        bootstrap.trim(), color.trim(), numRecords, warmupRecords, recordSize, throughput, props);
  }
}
