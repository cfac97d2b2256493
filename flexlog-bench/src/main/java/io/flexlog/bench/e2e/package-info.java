/**
 * {@code flexlog bench e2e}: append latency and subscribe delivery latency per color, so that the
 * cost of total order shows end to end (the root color {@code global}, ordered by the root
 * sequencer, against a leaf color ordered by its own), and a check that every subscriber saw every
 * acknowledged record exactly once, in SN order, at its acknowledged SN.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.bench.e2e.E2eCommand} (a subcommand of {@code flexlog bench}) validates
 *       the options into {@link io.flexlog.bench.e2e.E2eSettings}; {@link
 *       io.flexlog.bench.e2e.E2eBenchmark} starts the cluster of {@code flexlog dev --tree} in this
 *       process ({@code EmbeddedTree}, through flexlog-server's {@code DevCluster}, in a temporary
 *       directory) or uses the one at {@code --bootstrap}, and connects one {@link
 *       io.flexlog.client.FlexLog} per producer and per subscriber.
 *   <li>{@code ColorRun} measures one color after the other: a start marker, the subscribers
 *       ({@code Subscriber}, a {@link io.flexlog.client.RecordHandler}) subscribed from its SN, the
 *       producers ({@code Producer}) through warm-up and measurement under {@code LoadPhases}
 *       ({@code io.flexlog.bench.report}), then an end marker that every subscriber must receive.
 *       Each payload carries its producer, sequence number and send time ({@code
 *       E2ePayloadDescriptor}); the acks go to {@code AckedSns}, and {@code Verification} compares
 *       each subscriber's records with them.
 *   <li>{@code E2eReport} formats the results, {@code io.flexlog.bench.report} prints progress and
 *       writes the report.
 * </ul>
 *
 * <p>Threading: the launcher's thread controls the run; each producer has its own thread ({@code
 * flexlog-bench-e2e-producer-N}) and its appends complete on its client's event loop; each
 * subscriber's handler runs on its subscription's thread and alone writes its fields, which the
 * controlling thread reads only after the end marker arrived. Producers and subscribers share one
 * JVM, so their {@code System.nanoTime()} stamps agree.
 *
 * <p>Failures: a failed check, a subscription error or more than 1 % failed appends marks the color
 * failed and the exit code 1, as does a cluster that cannot be started or reached; a bad option, an
 * unknown color or a record over the cluster's limit exits 2. The embedded cluster and its
 * directory are removed at the end, also after a failure. Details: {@code flexlog-bench/README.md}.
 */
package io.flexlog.bench.e2e;
