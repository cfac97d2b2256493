/**
 * {@code flexlog bench failover}: the unavailability of a color while its sequencer leader is
 * killed and a backup takes the role (docs/architecture.md, "Sequencer failover"), on a cluster of
 * separate processes ({@code io.flexlog.server.dev.DevProcesses}). {@code FailoverCommand} parses,
 * {@code FailoverBenchmark} runs the appender thread and the kills, {@code FailoverReport} prints.
 */
package io.flexlog.bench.failover;
