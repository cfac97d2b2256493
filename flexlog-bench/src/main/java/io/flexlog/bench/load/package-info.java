/**
 * The closed-loop append load of {@code flexlog bench append}, independent of the client so that
 * tests drive it with fakes.
 *
 * <ul>
 *   <li>{@link io.flexlog.bench.load.AsyncAppender}: where a load client sends an append; in a run
 *       {@code payload -> flexLog.appendAsync(color, payload)}, in tests a fake future.
 *   <li>{@link io.flexlog.bench.load.LoadDriver}: one {@code ClosedLoopClient} per appender, each
 *       with exactly one append outstanding and issuing the next when the previous completes, so
 *       the offered load follows the latency of the system under test. It counts appends per phase
 *       (warm-up, measurement, stopped: an append belongs to the phase it was issued in) and
 *       records the measured latencies in an HdrHistogram recorder.
 *   <li>{@link io.flexlog.bench.load.LoadRunner} takes a driver through warm-up, a measurement of a
 *       duration or of an append budget, and the drain of the last appends, and returns a {@link
 *       io.flexlog.bench.load.Measurement}.
 *   <li>{@link io.flexlog.bench.load.Errors}: how every benchmark names a failed operation in its
 *       report (also used by the e2e and ordering loads).
 * </ul>
 *
 * <p>Who talks to whom: {@code AppendBenchmark} ({@code io.flexlog.bench.cli}) builds the appenders
 * over {@link io.flexlog.client.FlexLog} clients and runs the load; {@code io.flexlog.bench.report}
 * reads the driver's counters for progress lines and turns the {@code Measurement} into reports.
 * This package calls nothing else of FlexLog.
 *
 * <p>Threading: one controlling thread moves the driver through its phases and awaits it; each load
 * client runs on whichever thread completed its previous append (a client's event loop, or the
 * caller for an append that completes at once, which loops instead of recursing). The latency
 * recorder is written wait-free by those threads.
 *
 * <p>Failures: a failed append is counted with the first error's message and the client issues the
 * next one; clients whose last append has not completed by the drain timeout are reported in {@code
 * Measurement.clientsStillBusy}, and the benchmark then leaves them out and fails.
 */
package io.flexlog.bench.load;
