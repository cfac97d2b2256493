package io.flexlog.bench.cli;

import java.util.Map;

/**
 * The validated arguments of {@code flexlog bench produce}, named after Kafka's {@code
 * ProducerPerformance}.
 *
 * @param throughput records per second to aim at; -1 for no limit
 * @param producerProps producer properties ({@code linger.ms}, {@code batch.size}, ...)
 */
public record ProduceSettings(
    String bootstrap,
    String color,
    long numRecords,
    long warmupRecords,
    int recordSize,
    long throughput,
    Map<String, String> producerProps) {}
