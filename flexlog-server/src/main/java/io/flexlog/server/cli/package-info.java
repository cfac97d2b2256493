/**
 * The {@code flexlog} command line (picocli), the entry point of {@code bin/flexlog}: {@link
 * io.flexlog.server.cli.FlexLogCli} and one package-private command class per subcommand.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>Node commands: {@code sequencer} and {@code replica} load a {@code ClusterFile}, start a
 *       {@code MetricsEndpoint} and a {@link io.flexlog.server.NodeProcess}, print a ready line and
 *       keep the process alive until SIGINT/SIGTERM ({@code NodeRunner}, whose shutdown hook closes
 *       the node). {@code dev} does the same with a {@link io.flexlog.server.dev.DevCluster} and
 *       prints its topology.
 *   <li>Client commands: {@code append}, {@code read}, {@code tail} and {@code trim} open a {@link
 *       io.flexlog.client.FlexLog} from {@code --bootstrap} and {@code --timeout-ms} ({@code
 *       ClientOptions}); {@code tail} polls a {@link io.flexlog.client.RecordStream}. {@code colors
 *       add}, {@code list} and {@code describe} go through {@link io.flexlog.client.FlexLogAdmin}
 *       to the node given with {@code --bootstrap}, which relays them to the admin service, or with
 *       {@code --admin} straight to it through {@link io.flexlog.server.control.AdminClient}
 *       ({@code ColorsTarget}); {@code groups} uses {@code AdminOptions}.
 *   <li>Extensions: other modules add subcommands by implementing {@link
 *       io.flexlog.server.cli.CliExtension} and listing it in {@code META-INF/services}; the
 *       benchmarks' {@code bench} command comes in this way, so the server does not depend on
 *       flexlog-bench.
 * </ul>
 *
 * <p>Threading: a command runs on the main thread. Node commands then park it until a shutdown hook
 * ({@code flexlog-shutdown}) has closed the node; {@code tail} closes its stream from a hook of its
 * own ({@code flexlog-tail-stop}). Client commands set the log level to WARN so that their output
 * is only their result.
 *
 * <p>Failures and exit codes: 0 on success; 2 (usage) for bad arguments, an {@link
 * IllegalArgumentException} such as a cluster-file key at fault or a node of the wrong kind; 1 for
 * an operation that failed: a hole on {@code read}, or a {@code FlexLogException} or {@link
 * java.io.IOException} (a timeout, a node's error), printed as one line {@code flexlog: message};
 * any other exception also exits 1, with its stack trace. The commands and their options: {@code
 * docs/operations.md} ("The launcher").
 */
package io.flexlog.server.cli;
