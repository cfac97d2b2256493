/**
 * {@code flexlog bench ordering}: throughput and latency of FlexLog's ordering layer alone, a tree
 * of sequencer nodes, against a sequencer built on consensus (a counter replicated by Apache Ratis,
 * three peers), both in this process with closed-loop clients that keep a window of SNs
 * outstanding.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.bench.ordering.OrderingCommand} validates the options into {@link
 *       io.flexlog.bench.ordering.OrderingSettings}; {@code OrderingBenchmark} runs each FlexLog
 *       {@link io.flexlog.bench.ordering.Placement} and then, if asked, the Ratis side, one after
 *       the other, each through {@code PhasedRun} (prepare, warm-up, measurement, drain) and {@code
 *       LoadControl}, and reports with {@link io.flexlog.bench.ordering.OrderingReport} and {@code
 *       io.flexlog.bench.report}.
 *   <li>FlexLog side: {@code SequencerTree} builds the topology (the root over {@code leaves}
 *       chains of {@code height} levels); {@code SequencerCluster} starts its {@code
 *       SequencerNode}s (flexlog-sequencer) on loopback, parents first. Each {@code
 *       SequencerLoadClient} acts as the single replica of its own shard: it opens a connection
 *       through {@code ClientBootstrap} and speaks the replica's frames of {@code
 *       io.flexlog.core.protocol} (HELLO, ORDER_REQUEST, then ORDER_RESPONSE and WATERMARK),
 *       batching one request per event-loop turn as a replica does.
 *   <li>Ratis side: {@code RatisCounterCluster} runs three peers of {@code CounterStateMachine}
 *       over gRPC; {@code RatisLoadClient}s ask for SNs through Ratis' async API.
 * </ul>
 *
 * <p>Threading: the launcher's thread controls the phases; the FlexLog clients run on a few shared
 * event loops ({@code flexlog-obench-client}), each client's state confined to its channel's loop;
 * Ratis replies complete on Ratis' threads under each client's monitor. Counters are {@code
 * LongAdder}s and the phase is volatile.
 *
 * <p>Failures: an ERROR frame other than {@code NOT_READY}, a lost connection or an answer that
 * breaks the protocol fails that client and, with it, its side; a side that failed, measured
 * nothing, or saw a client's SNs not strictly increase is invalid, and the exit code is 1. Ports
 * are picked free on loopback and a start that fails to bind is retried. A bad option exits 2. The
 * data directories live under one temporary directory, deleted at the end. The sequencer tree's
 * protocol: {@code docs/architecture.md} ("Ordering in the sequencer tree"); running it: {@code
 * flexlog-bench/README.md}.
 */
package io.flexlog.bench.ordering;
