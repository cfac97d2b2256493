package io.flexlog.bench.report;

import java.time.Duration;

/**
 * How an append benchmark was set up, as shown next to its results.
 *
 * @param bootstrap the cluster's bootstrap servers
 * @param color the color appended to
 * @param clients closed-loop clients, each with one append outstanding
 * @param connections client instances (each with its own connections and event loop)
 * @param recordBytes payload size of every append
 * @param warmup time before the measurement began
 */
public record RunSetup(
    String bootstrap,
    String color,
    int clients,
    int connections,
    int recordBytes,
    Duration warmup) {}
