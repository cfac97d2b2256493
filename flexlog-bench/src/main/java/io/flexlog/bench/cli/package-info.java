/**
 * The {@code flexlog bench} command and the {@code bench append} load against a running cluster.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.bench.cli.BenchCliExtension} implements flexlog-server's {@link
 *       io.flexlog.server.cli.CliExtension} and is listed in {@code META-INF/services}, so the
 *       {@code flexlog} launcher adds {@link io.flexlog.bench.cli.BenchCommand} without the server
 *       depending on this module. Its subcommands: {@code append} and {@code storage} (here),
 *       {@code e2e} ({@code io.flexlog.bench.e2e}) and {@code ordering} ({@code
 *       io.flexlog.bench.ordering}).
 *   <li>{@code AppendCommand} validates its options into {@link
 *       io.flexlog.bench.cli.AppendSettings} and hands them to {@code AppendBenchmark}, which
 *       connects {@link io.flexlog.client.FlexLog} clients, checks the color and record size
 *       against the cluster, drives the closed-loop load of {@code io.flexlog.bench.load} and
 *       reports through {@code io.flexlog.bench.report}.
 *   <li>{@code StorageCommand} validates its options into a {@code StorageSettings} and runs the
 *       storage comparison of {@code io.flexlog.bench.storage}; it calls no cluster.
 *   <li>{@link io.flexlog.bench.cli.BenchmarkCommand} is what every subcommand (here, in {@code
 *       e2e} and in {@code ordering}) shares: it validates the options into settings, hands them to
 *       a {@code Runner} and returns its exit code, with the common option checks; {@link
 *       io.flexlog.bench.cli.JsonFileOption} is the {@code --json FILE} mixin they all use.
 *   <li>{@link io.flexlog.bench.cli.DurationConverter} parses {@code 500ms}, {@code 10s}, {@code
 *       2m} for every bench command.
 * </ul>
 *
 * <p>Threading: the commands run on the launcher's main thread, which also controls the load; the
 * appends complete on the clients' event loops, and progress lines come from a reporter thread.
 *
 * <p>Failures and exit codes: a bad option is a picocli {@code ParameterException}, printed with
 * the usage, exit code 2; {@code bench append} also exits 2, with one line, for a color the cluster
 * does not have or a record size over its limit. Exit code 1 when the clients cannot connect, the
 * JSON file cannot be written, appends were still outstanding after the drain timeout, or more than
 * the allowed share of appends failed. Running the benchmarks: {@code flexlog-bench/README.md}; the
 * cluster they run against: {@code docs/operations.md}.
 */
package io.flexlog.bench.cli;
