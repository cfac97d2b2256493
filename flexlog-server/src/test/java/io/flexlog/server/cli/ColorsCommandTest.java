package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code flexlog colors add|alter|list|describe} against an embedded cluster: through any node with
 * {@code --bootstrap} (the node relays to the admin service) and straight to the admin service with
 * {@code --admin}.
 */
class ColorsCommandTest {
  @TempDir static Path data;
  private static DevCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                FreePorts.consecutive(4),
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                32L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private record Run(int exitCode, String out, String err) {
    List<String> lines() {
      return out.lines().map(l -> String.join(" ", l.trim().split("\\s+"))).toList();
    }
  }

  private static Run run(String... args) {
    CommandLine cmd = FlexLogCli.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static Run admin(String... args) {
    String[] withAdmin = Arrays.copyOf(args, args.length + 2);
    withAdmin[args.length] = "--admin";
    withAdmin[args.length + 1] = cluster.adminAddress();
    return run(withAdmin);
  }

  private static Run bootstrap(String... args) {
    String[] withBootstrap = Arrays.copyOf(args, args.length + 2);
    withBootstrap[args.length] = "--bootstrap";
    withBootstrap[args.length + 1] = cluster.bootstrap();
    return run(withBootstrap);
  }

  @Test
  void shouldAddListAndDescribeThroughAnyNodeWithBootstrap() {
    Run added =
        bootstrap("colors", "add", "--name", "boot-a", "--parent", "global", "--shards", "2");
    Run list = bootstrap("colors", "list");
    Run described = bootstrap("colors", "describe", "--name", "boot-a");
    Run viaAdmin = admin("colors", "describe", "--name", "boot-a");
    Run unknown = bootstrap("colors", "describe", "--name", "nope");
    Run conflict =
        bootstrap("colors", "add", "--name", "boot-a", "--parent", "global", "--shards", "3");

    assertThat(added.exitCode()).as(added.err()).isZero();
    assertThat(added.out()).startsWith("created color 'boot-a'").contains("x 3 replicas");
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.lines())
        .contains(
            "global - 1 retention.ms=-1 retention.bytes=-1",
            "boot-a global 2 retention.ms=-1 retention.bytes=-1");
    assertThat(described.exitCode()).as(described.err()).isZero();
    assertThat(described.out())
        .startsWith("color=boot-a id=")
        .contains("parent=global sequencer-node=0 shards=[")
        .contains("replication=3 retention.ms=-1 retention.bytes=-1");
    assertThat(viaAdmin.out()).isEqualTo(described.out());
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("unknown color 'nope'");
    assertThat(conflict.exitCode()).isEqualTo(1);
    assertThat(conflict.err()).contains("color 'boot-a' already exists");
  }

  @Test
  void shouldRefuseBootstrapAndAdminTogetherAndNameUnreachableBootstrapServers() {
    Run both = run("colors", "list", "--bootstrap", cluster.bootstrap(), "--admin", "127.0.0.1:1");
    int closedPort = FreePorts.consecutive(1);
    Run unreachable =
        run("colors", "list", "--bootstrap", "127.0.0.1:" + closedPort, "--timeout-ms", "2000");

    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("give --bootstrap or --admin, not both");
    assertThat(unreachable.exitCode()).isEqualTo(1);
    assertThat(unreachable.err())
        .contains("no bootstrap server answered")
        .contains("127.0.0.1:" + closedPort);
  }

  @Test
  void shouldAddColorsAndListOnePerLineWithParentAndShardCount() {
    Run added = admin("colors", "add", "--name", "cli-a", "--parent", "global", "--shards", "2");
    Run again = admin("colors", "add", "--name", "cli-a", "--parent", "global", "--shards", "2");
    Run child =
        admin("colors", "add", "--name", "cli-b", "--parent", "cli-a", "--replication", "2");
    Run list = admin("colors", "list");

    assertThat(added.exitCode()).as(added.err()).isZero();
    assertThat(added.out()).startsWith("created color 'cli-a'").contains("x 3 replicas");
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).startsWith("unchanged (already exists): color 'cli-a'");
    assertThat(child.exitCode()).isZero();
    assertThat(list.exitCode()).isZero();
    String keepAll = " retention.ms=-1 retention.bytes=-1";
    assertThat(list.lines())
        .contains("global - 1" + keepAll, "cli-a global 2" + keepAll, "cli-b cli-a 1" + keepAll);
    assertThat(list.lines().get(0)).isEqualTo("global - 1" + keepAll);
  }

  @Test
  void shouldExitOneWithTheErrorMessageWhenTheOperationFails() {
    Run unknownParent = admin("colors", "add", "--name", "cli-x", "--parent", "nope");
    admin("colors", "add", "--name", "cli-y", "--parent", "global");
    Run conflict = admin("colors", "add", "--name", "cli-y", "--parent", "global", "--shards", "3");
    Run tooManyReplicas =
        admin("colors", "add", "--name", "cli-z", "--parent", "global", "--replication", "4");

    assertThat(unknownParent.exitCode()).isEqualTo(1);
    assertThat(unknownParent.err()).contains("parent color 'nope' does not exist");
    assertThat(conflict.exitCode()).isEqualTo(1);
    assertThat(conflict.err()).contains("color 'cli-y' already exists");
    assertThat(tooManyReplicas.exitCode()).isEqualTo(1);
    assertThat(tooManyReplicas.err()).contains("needs 4 distinct replica nodes");
  }

  @Test
  void shouldExitOneWhenTheAdminServiceIsUnreachable() {
    int closedPort = FreePorts.consecutive(1);
    Run list = run("colors", "list", "--admin", "127.0.0.1:" + closedPort, "--timeout-ms", "2000");

    assertThat(list.exitCode()).isEqualTo(1);
    assertThat(list.err()).contains("admin service at 127.0.0.1:" + closedPort);
  }

  @Test
  void shouldExitTwoOnBadArguments() {
    assertThat(
            admin("colors", "add", "--name", "x", "--parent", "global", "--shards", "0").exitCode())
        .isEqualTo(2);
    assertThat(
            admin("colors", "add", "--name", "x", "--parent", "global", "--replication", "0")
                .exitCode())
        .isEqualTo(2);
    Run badName = admin("colors", "add", "--name", "bad name", "--parent", "global");
    assertThat(badName.exitCode()).isEqualTo(2);
    assertThat(badName.err()).contains("illegal color name 'bad name'");
    assertThat(admin("colors", "add", "--parent", "global").exitCode()).isEqualTo(2);
    assertThat(run("colors").exitCode()).isEqualTo(2);
    Run badAdmin = run("colors", "list", "--admin", "no-port");
    assertThat(badAdmin.exitCode()).isEqualTo(2);
    assertThat(badAdmin.err()).contains("'no-port' is not host:port");
  }

  @Test
  void shouldSetRetentionAtAddAndChangeItWithAlter() {
    Run added =
        admin("colors", "add", "--name", "cli-r", "--parent", "global", "--retention-ms", "60000");
    Run altered = admin("colors", "alter", "--name", "cli-r", "--retention-bytes", "1048576");
    Run again = admin("colors", "alter", "--name", "cli-r", "--retention-bytes", "1048576");
    Run list = admin("colors", "list");

    assertThat(added.exitCode()).as(added.err()).isZero();
    assertThat(added.out()).contains("retention.ms=60000 retention.bytes=-1");
    assertThat(altered.exitCode()).as(altered.err()).isZero();
    assertThat(altered.out())
        .startsWith("altered color 'cli-r': retention.ms=60000 retention.bytes=1048576");
    assertThat(again.out()).startsWith("unchanged (already so): color 'cli-r'");
    assertThat(list.lines()).contains("cli-r global 1 retention.ms=60000 retention.bytes=1048576");
  }

  @Test
  void shouldSetRetentionAtAddAndChangeItWithAlterThroughAnyNodeWithBootstrap() {
    Run added =
        bootstrap(
            "colors", "add", "--name", "boot-r", "--parent", "global", "--retention-ms", "60000");
    Run altered = bootstrap("colors", "alter", "--name", "boot-r", "--retention-bytes", "1048576");
    Run again = bootstrap("colors", "alter", "--name", "boot-r", "--retention-bytes", "1048576");
    Run both =
        bootstrap(
            "colors",
            "alter",
            "--name",
            "boot-r",
            "--retention-ms",
            "-1",
            "--retention-bytes",
            "2048");
    Run described = bootstrap("colors", "describe", "--name", "boot-r");
    Run viaAdmin = admin("colors", "list");

    assertThat(added.exitCode()).as(added.err()).isZero();
    assertThat(added.out())
        .startsWith("created color 'boot-r'")
        .contains("retention.ms=60000 retention.bytes=-1");
    assertThat(altered.exitCode()).as(altered.err()).isZero();
    assertThat(altered.out())
        .startsWith("altered color 'boot-r': retention.ms=60000 retention.bytes=1048576");
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out()).startsWith("unchanged (already so): color 'boot-r'");
    assertThat(both.exitCode()).as(both.err()).isZero();
    assertThat(both.out())
        .startsWith("altered color 'boot-r': retention.ms=-1 retention.bytes=2048");
    assertThat(described.out()).contains("retention.ms=-1 retention.bytes=2048");
    // The admin service holds what the relay asked for.
    assertThat(viaAdmin.lines()).contains("boot-r global 1 retention.ms=-1 retention.bytes=2048");
  }

  @Test
  void shouldRefuseBadRetentionsAndUnknownColorsNamingTheProblem() {
    Run negative =
        admin("colors", "add", "--name", "cli-n", "--parent", "global", "--retention-ms", "-5");
    Run zero = admin("colors", "alter", "--name", "global", "--retention-bytes", "0");
    Run nothing = admin("colors", "alter", "--name", "global");
    Run unknown = admin("colors", "alter", "--name", "no-such", "--retention-ms", "1000");
    Run relayedUnknown =
        bootstrap("colors", "alter", "--name", "no-such", "--retention-ms", "1000");
    Run relayedNegative =
        bootstrap("colors", "add", "--name", "cli-q", "--parent", "global", "--retention-ms", "-9");

    assertThat(negative.exitCode()).isEqualTo(2);
    assertThat(negative.err())
        .contains("--retention-ms must be -1 (keep everything) or > 0, got -5");
    assertThat(zero.exitCode()).isEqualTo(2);
    assertThat(zero.err()).contains("--retention-bytes must be -1 (keep everything) or > 0, got 0");
    assertThat(nothing.exitCode()).isEqualTo(2);
    assertThat(nothing.err()).contains("nothing to change");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("cannot alter color 'no-such': no such color");
    assertThat(relayedUnknown.exitCode()).isEqualTo(1);
    assertThat(relayedUnknown.err()).contains("cannot alter color 'no-such': no such color");
    assertThat(relayedNegative.exitCode()).isEqualTo(2);
    assertThat(relayedNegative.err())
        .contains("--retention-ms must be -1 (keep everything) or > 0, got -9");
    assertThat(admin("colors", "list").out()).doesNotContain("cli-q");
  }
}
