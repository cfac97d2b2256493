/**
 * What the benchmarks print and write: progress while a load runs, the summary on stdout, the
 * optional {@code --json} file, and the exit code.
 *
 * <ul>
 *   <li>{@link io.flexlog.bench.report.BenchReport}: the numbers of {@code bench append}, derived
 *       once from a {@code Measurement} ({@code io.flexlog.bench.load}) and its {@link
 *       io.flexlog.bench.report.RunSetup}, so that {@link io.flexlog.bench.report.TextReport} and
 *       {@link io.flexlog.bench.report.JsonReport} cannot disagree.
 *   <li>{@link io.flexlog.bench.report.Json}: the JSON of every {@code --json} file, built as
 *       Jackson trees, with decimals written to a fixed number of places.
 *   <li>{@link io.flexlog.bench.report.ProgressReporter}: a progress line at a fixed interval (5 s
 *       unless the benchmark picks another) on stderr, from a {@code LoadDriver} or any {@link
 *       io.flexlog.bench.report.ProgressReporter.Source} (the e2e and ordering loads).
 *   <li>{@link io.flexlog.bench.report.LoadPhases}: the phases of a load (warm-up, measurement,
 *       stopped) and the counters its progress lines show, for the e2e and ordering loads.
 *   <li>{@link io.flexlog.bench.report.ReportOutput}: prints a finished report, writes the JSON
 *       file, and returns exit code 1 when the run was invalid or the file could not be written;
 *       {@code writeJson} alone for the benchmarks that decide their exit code themselves.
 *   <li>{@link io.flexlog.bench.report.Directories}: removes a run's temporary data directories
 *       ({@code deleteOrWarn} prints a failure on stderr instead of throwing it).
 * </ul>
 *
 * <p>Who talks to whom: every benchmark calls in: {@code AppendBenchmark} ({@code
 * io.flexlog.bench.cli}), the end-to-end, ordering and storage benchmarks ({@code
 * io.flexlog.bench.e2e}, {@code io.flexlog.bench.ordering}, {@code io.flexlog.bench.storage}, which
 * build their own JSON objects with {@link io.flexlog.bench.report.Json}). This package reads
 * {@code io.flexlog.bench.load} and talks to no cluster.
 *
 * <p>Threading: a {@code ProgressReporter} runs on its own daemon thread ({@code
 * flexlog-bench-progress}) and only reads the load's counters, which are safe to read concurrently;
 * everything else runs on the benchmark's controlling thread. Failures: a JSON file that cannot be
 * written is reported on stderr and turns into exit code 1. Running the benchmarks: {@code
 * flexlog-bench/README.md}.
 */
package io.flexlog.bench.report;
