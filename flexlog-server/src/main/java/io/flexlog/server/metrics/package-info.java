/**
 * The Prometheus face of a node process: {@link io.flexlog.server.metrics.MetricsEndpoint} owns a
 * Micrometer {@code PrometheusMeterRegistry} with the JVM memory and GC meters bound to it and,
 * when given a non-zero port, serves its scrape at {@code /metrics} with the JDK's built-in HTTP
 * server. With port 0 the meters are still kept but not served (benchmarks read them directly).
 *
 * <p>Who talks to whom: the {@code flexlog sequencer}, {@code flexlog replica} and {@code flexlog
 * dev} commands ({@code io.flexlog.server.cli}) create one endpoint per process and pass its {@link
 * io.flexlog.server.metrics.MetricsEndpoint#registry()} to the nodes they start ({@link
 * io.flexlog.server.NodeProcess}, {@link io.flexlog.server.dev.DevCluster}); the sequencer and
 * replica register their meters there, tagged by node id. This package calls no other FlexLog code.
 *
 * <p>Threading: a scrape runs on the HTTP server's own thread and reads the registry, which is
 * thread-safe; the nodes update their meters from their event loops. {@link
 * io.flexlog.server.metrics.MetricsEndpoint#close()} stops the server at once and closes the
 * registry.
 *
 * <p>Failures: a port that cannot be bound fails the constructor with an {@link
 * java.io.IOException}, and the command exits before any node starts. The list of meters and what
 * they mean is in {@code docs/operations.md} ("Metrics").
 */
package io.flexlog.server.metrics;
