package io.flexlog.server.cli;

import io.flexlog.client.AlterColorOptions;
import io.flexlog.client.AlterColorResult;
import io.flexlog.client.ColorDescription;
import io.flexlog.client.CreateColorResult;
import io.flexlog.client.NewColor;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.server.control.ColorSpec;
import java.io.PrintWriter;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "colors",
    mixinStandardHelpOptions = true,
    description = {
      "Create, alter, list and describe colors through the cluster's admin service.",
      "Any node reached with --bootstrap relays the request to it; --admin calls it directly."
    },
    subcommands = {
      ColorsCommand.Add.class,
      ColorsCommand.Alter.class,
      ColorsCommand.ListColors.class,
      ColorsCommand.Describe.class
    })
final class ColorsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing subcommand: add, alter, list or describe");
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Create a color under an existing parent.",
        "Its new shards are placed on distinct replica nodes (least-loaded first). Idempotent:"
            + " the same settings again succeed."
      })
  static final class Add implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ColorsTarget target;

    @Option(
        names = "--name",
        paramLabel = "NAME",
        required = true,
        description = "The new color's name.")
    String name;

    @Option(
        names = "--parent",
        paramLabel = "COLOR",
        required = true,
        description = "The parent color, e.g. global.")
    String parent;

    @Option(
        names = "--shards",
        paramLabel = "S",
        defaultValue = "1",
        description = "Shards attached to the color (default: ${DEFAULT-VALUE}).")
    int shards;

    @Option(
        names = "--replication",
        paramLabel = "R",
        defaultValue = "3",
        description = "Replicas per shard (default: ${DEFAULT-VALUE}).")
    int replication;

    @Option(
        names = "--sequencer-node",
        paramLabel = "N",
        description = "The sequencer node to host the color's role (default: the parent's).")
    Integer sequencerNode;

    @Option(
        names = "--retention-ms",
        paramLabel = "MS",
        description =
            "Trim records older than MS milliseconds; -1 keeps them (default: -1, keep"
                + " everything).")
    Long retentionMs;

    @Option(
        names = "--retention-bytes",
        paramLabel = "BYTES",
        description =
            "Keep at most about BYTES payload bytes of the color per shard, trimming the oldest;"
                + " -1 for no limit (default: -1).")
    Long retentionBytes;

    @Override
    public Integer call() {
      try {
        Color.validateName(name);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--name: " + e.getMessage());
      }
      if (shards < 1 || shards > ColorSpec.MAX_SHARDS) {
        throw new ParameterException(
            spec.commandLine(),
            "--shards must be in 1.." + ColorSpec.MAX_SHARDS + ", got " + shards);
      }
      if (replication < 1 || replication > ColorSpec.MAX_REPLICATION_FACTOR) {
        throw new ParameterException(
            spec.commandLine(),
            "--replication must be in 1.."
                + ColorSpec.MAX_REPLICATION_FACTOR
                + ", got "
                + replication);
      }
      NewColor color = NewColor.of(name, parent).shards(shards).replicationFactor(replication);
      if (sequencerNode != null) {
        color = color.sequencerNode(sequencerNode);
      }
      checkRetention(spec, "--retention-ms", retentionMs);
      checkRetention(spec, "--retention-bytes", retentionBytes);
      if (retentionMs != null) {
        color = color.retentionMs(retentionMs);
      }
      if (retentionBytes != null) {
        color = color.retentionBytes(retentionBytes);
      }
      CreateColorResult result;
      try (ColorsTarget.Session session = target.open()) {
        result = session.createColor(color);
      }
      PrintWriter out = spec.commandLine().getOut();
      ColorDescription created = result.color();
      out.printf(
          "%s color '%s' (id %d) under '%s' on sequencer node %d: shards %s x %d replicas, %s,"
              + " topology version %d%n",
          result.created() ? "created" : "unchanged (already exists):",
          created.name(),
          created.id(),
          created.parent().orElse(""),
          created.sequencerNodeId(),
          created.shardIds(),
          created.replicationFactor(),
          created.retention(),
          result.topologyVersion());
      out.flush();
      warnUnacknowledged(spec, result.unacknowledgedNodeIds(), result.topologyVersion());
      return 0;
    }
  }

  @Command(
      name = "alter",
      mixinStandardHelpOptions = true,
      description = {
        "Change a color's retention.",
        "Options left out keep their value. The replicas apply the new retention within a few"
            + " seconds (docs/architecture.md#retention)."
      })
  static final class Alter implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ColorsTarget target;

    @Option(
        names = "--name",
        paramLabel = "NAME",
        required = true,
        description = "The color to change.")
    String name;

    @Option(
        names = "--retention-ms",
        paramLabel = "MS",
        description = "Trim records older than MS milliseconds; -1 keeps them.")
    Long retentionMs;

    @Option(
        names = "--retention-bytes",
        paramLabel = "BYTES",
        description =
            "Keep at most about BYTES payload bytes of the color per shard; -1 for no limit.")
    Long retentionBytes;

    @Override
    public Integer call() {
      if (retentionMs == null && retentionBytes == null) {
        throw new ParameterException(
            spec.commandLine(), "nothing to change: give --retention-ms or --retention-bytes");
      }
      checkRetention(spec, "--retention-ms", retentionMs);
      checkRetention(spec, "--retention-bytes", retentionBytes);
      AlterColorOptions options =
          new AlterColorOptions(
              retentionMs == null ? OptionalLong.empty() : OptionalLong.of(retentionMs),
              retentionBytes == null ? OptionalLong.empty() : OptionalLong.of(retentionBytes));
      AlterColorResult result;
      try (ColorsTarget.Session session = target.open()) {
        result = session.alterColor(name, options);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "%s color '%s': %s, topology version %d%n",
          result.changed() ? "altered" : "unchanged (already so):",
          result.color().name(),
          result.color().retention(),
          result.topologyVersion());
      out.flush();
      warnUnacknowledged(spec, result.unacknowledgedNodeIds(), result.topologyVersion());
      return 0;
    }
  }

  /** A warning on stderr naming the nodes that have not applied the new topology version yet. */
  private static void warnUnacknowledged(CommandSpec spec, List<Integer> nodeIds, long version) {
    if (nodeIds.isEmpty()) {
      return;
    }
    PrintWriter err = spec.commandLine().getErr();
    err.printf(
        "flexlog: warning: nodes %s have not applied topology version %d yet; they get it when"
            + " they reconnect%n",
        nodeIds, version);
    err.flush();
  }

  private static void checkRetention(CommandSpec spec, String option, Long value) {
    if (value != null && value != Retention.KEEP && value <= 0) {
      throw new ParameterException(
          spec.commandLine(), option + " must be -1 (keep everything) or > 0, got " + value);
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Print every color, one per line.",
        "Each line: name, parent ('-' for the root), number of shards attached to it and its"
            + " retention (-1: keep everything)."
      })
  static final class ListColors implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ColorsTarget target;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (ColorsTarget.Session session = target.open()) {
        for (ColorDescription color : session.listColors()) {
          out.printf(
              "%-20s %-20s %d %s%n",
              color.name(), color.parent().orElse("-"), color.shardIds().size(), color.retention());
        }
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = {
        "Print one color's settings.",
        "One line: name, id, parent, sequencer node, shards, replicas per shard and retention;"
            + " exit 1 for an unknown color."
      })
  static final class Describe implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ColorsTarget target;

    @Option(
        names = "--name",
        paramLabel = "NAME",
        required = true,
        description = "The color to describe.")
    String name;

    @Override
    public Integer call() {
      ColorDescription color;
      try (ColorsTarget.Session session = target.open()) {
        color = session.describeColor(name);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "color=%s id=%d parent=%s sequencer-node=%d shards=%s replication=%d %s%n",
          color.name(),
          color.id(),
          color.parent().orElse("-"),
          color.sequencerNodeId(),
          color.shardIds(),
          color.replicationFactor(),
          color.retention());
      out.flush();
      return 0;
    }
  }
}
