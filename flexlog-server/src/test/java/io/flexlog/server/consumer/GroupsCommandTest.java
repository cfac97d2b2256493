package io.flexlog.server.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.FlexLogConsumer;
import io.flexlog.server.cli.FlexLogCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code flexlog groups create|list|describe|reset-positions} against an embedded cluster. */
class GroupsCommandTest {
  @TempDir Path data;
  private ConsumerCluster c;

  @BeforeEach
  void start() throws Exception {
    c = new ConsumerCluster(data, "orders", 2);
  }

  @AfterEach
  void stop() {
    c.close();
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cmd = FlexLogCli.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    return new Run(cmd.execute(args), out.toString(), err.toString());
  }

  @Test
  void shouldDescribeMembersAndPositionsAndResetOnlyAnEmptyGroup() {
    long sn = c.log.append("orders", "x".getBytes(StandardCharsets.UTF_8));
    assertThat(
            run("groups", "create", "--group", "billing", "--admin", c.cluster.adminAddress())
                .exitCode())
        .isZero();
    FlexLogConsumer<byte[], byte[]> consumer = c.consumer(c.settings("billing"));
    consumer.subscribe(List.of("orders"));
    ConsumerCluster.pollUntil(
        consumer, Duration.ofSeconds(30), () -> consumer.assignment().size() == 2);
    ColorShard first = consumer.assignment().iterator().next();
    consumer.commitSync(Map.of(first, sn + 1));

    Run list = run("groups", "list", "--admin", c.cluster.adminAddress());
    assertThat(list.out().lines()).contains("billing");
    Run described =
        run("groups", "describe", "--group", "billing", "--bootstrap", c.cluster.bootstrap());
    assertThat(described.exitCode()).as(described.err()).isZero();
    assertThat(described.out())
        .contains("members 1")
        .contains("colors [orders]")
        .contains("position " + first + " " + (sn + 1));

    Run refused =
        run(
            "groups",
            "reset-positions",
            "--group",
            "billing",
            "--color",
            "orders",
            "--to-earliest",
            "--bootstrap",
            c.cluster.bootstrap());
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err()).contains("can be reset only while it has none");

    consumer.close();
    Run reset =
        run(
            "groups",
            "reset-positions",
            "--group",
            "billing",
            "--color",
            "orders",
            "--to-sn",
            "7",
            "--bootstrap",
            c.cluster.bootstrap());
    assertThat(reset.exitCode()).as(reset.err()).isZero();
    Run after =
        run("groups", "describe", "--group", "billing", "--bootstrap", c.cluster.bootstrap());
    assertThat(after.out())
        .contains("members 0")
        .contains("position " + first + " 7")
        .contains("position orders 7");

    Run latest =
        run(
            "groups",
            "reset-positions",
            "--group",
            "billing",
            "--color",
            "orders",
            "--to-latest",
            "--bootstrap",
            c.cluster.bootstrap());
    assertThat(latest.exitCode()).as(latest.err()).isZero();
    assertThat(
            run("groups", "describe", "--group", "billing", "--bootstrap", c.cluster.bootstrap())
                .out())
        .contains("position orders " + (sn + 1));
    assertThat(c.log.tail("orders").head()).as("a reset never trims").isEqualTo(1L);
  }

  @Test
  void shouldRefuseABadGroupIdNamingTheOption() {
    Run bad =
        run("groups", "describe", "--group", "no spaces", "--bootstrap", c.cluster.bootstrap());
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--group").contains("group.id");
  }
}
