package io.flexlog.server.config;

import io.flexlog.client.ClientConfigDef;
import io.flexlog.client.producer.ProducerConfig;
import io.flexlog.core.config.ConfigDef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Renders {@code docs/configuration.md} from the config registries ({@link ClientConfigDef}, {@link
 * ClusterFileDef}), so that the reference can never disagree with the code. {@code
 * ConfigurationDocTest} fails when the committed file is stale and prints {@link #REGENERATE}.
 */
public final class ConfigurationDoc {
  /** The command that rewrites {@code docs/configuration.md} from the registries. */
  public static final String REGENERATE =
      "mvn -o -q -pl flexlog-server -am test -Dtest=ConfigurationDocTest"
          + " -Dflexlog.docs.regenerate=true -Dsurefire.failIfNoSpecifiedTests=false";

  private ConfigurationDoc() {}

  /** Writes the reference to {@code args[0]} (default {@code docs/configuration.md}). */
  public static void main(String[] args) throws IOException {
    Path target = Path.of(args.length > 0 ? args[0] : "docs/configuration.md");
    Files.writeString(target, render(), StandardCharsets.UTF_8);
  }

  /** The whole Markdown reference. */
  public static String render() {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration\n\n")
        .append("<!-- Generated from the config registries (ClientConfigDef, ProducerConfig,\n")
        .append("     ConsumerConfigDef,\n")
        .append("     ClusterFileDef) by\n")
        .append(
            "     io.flexlog.server.config.ConfigurationDoc; do not edit by hand. Regenerate:\n")
        .append("     ")
        .append(REGENERATE)
        .append(" -->\n\n")
        .append(
            """
            FlexLog reads two kinds of settings, each declared once in a registry with its type,
            default, rule and doc:

            - the **client properties** (`FlexLogConfig.fromProperties`) and the **producer
              properties** (`FlexLogProducer`), in Kafka's dotted style: `request.timeout.ms`;
            - the **cluster file** (YAML, read by `bin/flexlog sequencer|replica --config`), in
              dashed style: `atomic-abandon-after-ms` under `node:`.

            Keys ending in `ms` are durations in milliseconds; sizes take a number of bytes or a
            binary unit (`4096`, `64KiB`, `256MiB`, `1GiB`). Unknown keys are an error, so that a
            typo does not pass silently. Every error names the key as it was written, the value
            and the rule, e.g. `read-hold-ms must be > 0, got 0` or
            `request.timeout.ms must be a number of milliseconds, got soon`.

            """);
    section(
        out,
        "Client properties",
        "Read by `FlexLogConfig.fromProperties(Properties)`; `FlexLogConfig.builder()` sets the"
            + " same settings in code and checks them with the same rules.",
        ClientConfigDef.DEF);
    section(
        out,
        "Producer properties",
        "Read by `FlexLogProducer`'s constructors (`io.flexlog.client.producer`), under Kafka's"
            + " names and meanings where they match; `acks` and `enable.idempotence` accept only"
            + " what FlexLog does (every replica acknowledges; every record is deduplicated).",
        ProducerConfig.DEF);
    section(
        out,
        "Consumer properties",
        "Read by `FlexLogConsumer` (`ConsumerConfig.fromProperties`/`fromMap`) besides the client"
            + " properties above, which configure the consumer's connection (its"
            + " `subscribe.window.bytes` defaults to `fetch.max.bytes`). Any other key is an error"
            + " naming it.",
        io.flexlog.client.consumer.ConsumerConfigDef.DEF);
    section(
        out,
        "Cluster file: `cluster:`",
        "Besides these keys, `cluster:` holds the topology: the lists `nodes` (`id`, `kind`"
            + " sequencer or replica, `host`, `port`, and on the metadata quorum's nodes"
            + " `admin-port` and `metadata-port`, default `admin-port` + 1), `colors` (`id`, `name`, `parent`, `sequencer`) and `shards` (`id`,"
            + " `color`, `replicas`). Every node of a cluster may read the same file.",
        ClusterFileDef.CLUSTER);
    section(
        out,
        "Cluster file: `node:`",
        "The settings of the node process that reads the file. The command-line options"
            + " `--node-id`, `--data`, `--engine`, `--durability`, `--pm-bytes` and"
            + " `--metrics-port` override `id`, `data-dir`, `engine`, `durability`, `pm-bytes`"
            + " and `metrics-port`; an error in one names the option.",
        ClusterFileDef.NODE);
    return out.toString();
  }

  private static void section(StringBuilder out, String title, String intro, ConfigDef def) {
    out.append("## ").append(title).append("\n\n").append(intro).append("\n\n");
    out.append(def.toMarkdown()).append('\n');
  }
}
