package io.flexlog.server.cli;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerConfigDef;
import io.flexlog.client.consumer.FlexLogGroups;
import io.flexlog.client.consumer.FlexLogGroups.GroupDescription;
import io.flexlog.client.consumer.FlexLogGroups.MemberDescription;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Shard;
import io.flexlog.server.control.AdminClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "groups",
    mixinStandardHelpOptions = true,
    description =
        "Consumer groups: their members, assignments and committed positions, kept in each"
            + " group's color flexlog.group.<id> (docs/architecture.md#consumer-groups).",
    subcommands = {
      GroupsCommand.Create.class,
      GroupsCommand.ListGroups.class,
      GroupsCommand.Describe.class,
      GroupsCommand.ResetPositions.class
    })
final class GroupsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing subcommand: create, list, describe or reset-positions");
  }

  static String checkGroup(CommandSpec spec, String group) {
    try {
      ConsumerConfig.fromMap(Map.of(ConsumerConfigDef.GROUP_ID.name(), group));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--group: " + e.getMessage());
    }
    return group;
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = "Create a group's color (consumers do it on first use when they can).")
  static final class Create implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin;

    @Option(names = "--group", required = true, description = "The group id.")
    String group;

    @Override
    public Integer call() {
      String color = FlexLogGroups.groupColor(checkGroup(spec, group));
      try (AdminClient client = admin.connect()) {
        boolean created =
            client
                .addColor(
                    AddColorRequest.newBuilder()
                        .setName(color)
                        .setParent("global")
                        .setShards(1)
                        .build())
                .getCreated();
        spec.commandLine()
            .getOut()
            .printf("%s group '%s' (color %s)%n", created ? "created" : "exists:", group, color);
        spec.commandLine().getOut().flush();
      }
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Print every group id.")
  static final class ListGroups implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (AdminClient client = admin.connect()) {
        for (ColorInfo color : client.listColors().getColorsList()) {
          if (color.getName().startsWith(ConsumerConfig.GROUP_COLOR_PREFIX)) {
            out.println(color.getName().substring(ConsumerConfig.GROUP_COLOR_PREFIX.length()));
          }
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
        "Print a group as its log says now.",
        "Its generation, its members with their colors and shards, and its committed positions",
        "(next SN to read) per color/shard ('color' alone: whole color)."
      })
  static final class Describe implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClientOptions client;

    @Option(names = "--group", required = true, description = "The group id.")
    String group;

    @Override
    public Integer call() {
      checkGroup(spec, group);
      GroupDescription d = FlexLogGroups.describe(config(client), group);
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "group %s generation %d members %d%n", d.groupId(), d.generation(), d.members().size());
      for (MemberDescription m : d.members()) {
        out.printf("member %s colors %s shards %s%n", m.id(), m.colors(), m.shards());
      }
      d.committed().forEach((cs, sn) -> out.printf("position %s %d%n", cs, sn));
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "reset-positions",
      mixinStandardHelpOptions = true,
      description = {
        "Set the committed positions of a group for every shard of a color.",
        "Also for the whole color. Refused while the group has members: stop its consumers first."
      })
  static final class ResetPositions implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClientOptions client;

    @Option(names = "--group", required = true, description = "The group id.")
    String group;

    @Option(names = "--color", required = true, description = "The color whose positions move.")
    String color;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
      @Option(names = "--to-earliest", description = "Back to the first record still stored.")
      boolean earliest;

      @Option(names = "--to-latest", description = "Past the color's current tail.")
      boolean latest;

      @Option(names = "--to-sn", paramLabel = "SN", description = "The next SN to read.")
      Long sn;
    }

    @Override
    public Integer call() {
      checkGroup(spec, group);
      if (target.sn != null && target.sn < 0) {
        throw new ParameterException(spec.commandLine(), "--to-sn must be >= 0");
      }
      FlexLogConfig config = config(client);
      Map<ColorShard, Long> positions = new LinkedHashMap<>();
      try (FlexLog log = FlexLog.connect(config)) {
        int colorId =
            log.topology()
                .color(color)
                .orElseThrow(() -> new InvalidArgumentException("unknown color '" + color + "'"))
                .id();
        long sn = target.earliest ? 0 : target.sn != null ? target.sn : log.tail(color).tail() + 1;
        positions.put(ColorShard.wholeColor(color), sn);
        for (Shard shard : log.topology().shardsInSubtree(colorId)) {
          positions.put(ColorShard.of(color, shard.id()), sn);
        }
      }
      FlexLogGroups.resetPositions(config, group, positions);
      PrintWriter out = spec.commandLine().getOut();
      positions.forEach((cs, sn) -> out.printf("position %s %d%n", cs, sn));
      out.flush();
      return 0;
    }
  }

  private static FlexLogConfig config(ClientOptions client) {
    if (client.timeoutMs <= 0) {
      throw new IllegalArgumentException("--timeout-ms must be > 0");
    }
    Duration timeout = Duration.ofMillis(client.timeoutMs);
    return FlexLogConfig.builder()
        .bootstrapServers(client.bootstrap)
        .connectTimeout(timeout)
        .deliveryTimeout(timeout)
        .requestTimeout(Duration.ofMillis(Math.min(2000, client.timeoutMs)))
        .build();
  }
}
