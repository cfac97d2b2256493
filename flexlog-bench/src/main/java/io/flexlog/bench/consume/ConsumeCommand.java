package io.flexlog.bench.consume;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.server.control.AdminClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code flexlog bench consume}: against a running cluster (for example {@code flexlog dev
 * --pm-bytes 2GiB}), in a fresh color created through the admin service.
 */
@Command(
    name = "consume",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "FlexLogConsumer benchmarks in a fresh color: catch-up (load N records, then read them from"
          + " SN 0 and report records/s), latency (produce at a rate, report produce->poll"
          + " percentiles), roundtrip (sequential send-then-poll round trips, the shape of Kafka's"
          + " EndToEndLatency), rebalance (4 group members, one killed with SIGKILL: time until its"
          + " shards are read again).",
      "Exit codes: 0 done, 1 the run failed, 2 bad arguments."
    })
public final class ConsumeCommand implements Callable<Integer> {
  enum Mode {
    catchup,
    latency,
    roundtrip,
    rebalance
  }

  @Spec private CommandSpec spec;

  @Option(
      names = "--mode",
      required = true,
      description = "catchup, latency, roundtrip or rebalance.")
  Mode mode;

  @Option(names = "--bootstrap", defaultValue = "127.0.0.1:7070", description = "Any node.")
  String bootstrap;

  @Option(names = "--admin", defaultValue = "127.0.0.1:7090", description = "The admin service.")
  String admin;

  @Option(
      names = "--existing-color",
      description =
          "catchup: read this color, already holding --records records (no load); roundtrip:"
              + " send to and poll this color (as Kafka's tool uses an existing topic: no admin"
              + " call in the measuring JVM).")
  String existingColor;

  @Option(names = "--shards", defaultValue = "1", description = "Shards of the fresh color.")
  int shards;

  @Option(names = "--records", defaultValue = "1500000", description = "catchup: records loaded.")
  int records;

  @Option(names = "--record-bytes", defaultValue = "1024", description = "Payload bytes.")
  int recordBytes;

  @Option(
      names = "--reader",
      defaultValue = "consumer",
      description = "catchup: consumer (FlexLogConsumer) or stream (FlexLog.subscribe).")
  String reader;

  @Option(names = "--rate", defaultValue = "1000", description = "latency, rebalance: appends/s.")
  int rate;

  @Option(
      names = "--duration",
      defaultValue = "20",
      description = "latency: seconds measured (after 5 s warm-up).")
  int durationSeconds;

  @Option(
      names = "--round-trips",
      defaultValue = "10000",
      description = "roundtrip: sequential produce->poll round trips measured.")
  int roundTrips;

  @Option(
      names = "--warmup-round-trips",
      defaultValue = "0",
      description =
          "roundtrip: unmeasured round trips first (0: measure from the first, as Kafka's tool).")
  int warmupRoundTrips;

  @Option(
      names = "--session-timeout-ms",
      defaultValue = "3000",
      description = "rebalance: the members' session.timeout.ms.")
  int sessionTimeoutMs;

  @Override
  public Integer call() throws Exception {
    if (shards < 1
        || records < 1
        || recordBytes < 16
        || rate < 1
        || durationSeconds < 1
        || roundTrips < 1
        || warmupRoundTrips < 0) {
      throw new ParameterException(
          spec.commandLine(),
          "--shards, --records, --rate, --duration and --round-trips must be >= 1, --record-bytes"
              + " >= 16, --warmup-round-trips >= 0");
    }
    if (!reader.equals("consumer") && !reader.equals("stream")) {
      throw new ParameterException(
          spec.commandLine(), "--reader must be consumer or stream, got " + reader);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (existingColor != null) {
      return switch (mode) {
        case catchup ->
            new CatchUpRun(bootstrap, existingColor, records, recordBytes, reader, false, out)
                .run();
        case roundtrip ->
            new RoundTripRun(
                    bootstrap, existingColor, recordBytes, roundTrips, warmupRoundTrips, out)
                .run();
        default ->
            throw new ParameterException(
                spec.commandLine(), "--existing-color needs --mode catchup or roundtrip");
      };
    }
    String color = mode + "-" + System.currentTimeMillis();
    try (AdminClient a = AdminClient.connect(admin, Duration.ofSeconds(30))) {
      a.addColor(
          AddColorRequest.newBuilder()
              .setName(color)
              .setParent("global")
              .setShards(shards)
              .build());
    }
    out.printf("color %s, %d shard(s), %d-byte records%n", color, shards, recordBytes);
    out.flush();
    return switch (mode) {
      case catchup ->
          new CatchUpRun(bootstrap, color, records, recordBytes, reader, true, out).run();
      case latency ->
          new LatencyRun(bootstrap, color, recordBytes, rate, durationSeconds, out).run();
      case roundtrip ->
          new RoundTripRun(bootstrap, color, recordBytes, roundTrips, warmupRoundTrips, out).run();
      case rebalance ->
          new RebalanceRun(bootstrap, color, recordBytes, rate, sessionTimeoutMs, out).run();
    };
  }
}
