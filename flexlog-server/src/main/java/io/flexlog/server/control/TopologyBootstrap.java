package io.flexlog.server.control;

import io.flexlog.core.model.Topology;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides the topology a node starts with, from the configured one (the cluster file or the dev
 * layout) and the node's {@link MetadataStore}:
 *
 * <ul>
 *   <li>no stored metadata yet: the configured topology, which becomes the stored one;
 *   <li>otherwise the stored colors and shards win (they include every color created with AddColor
 *       since the cluster file was written), with the configured nodes and addresses, which must
 *       still hold every stored shard and role. On the root node (authoritative), a change of nodes
 *       or addresses becomes a new, durable topology version.
 * </ul>
 */
public final class TopologyBootstrap {
  private static final Logger LOG = LoggerFactory.getLogger(TopologyBootstrap.class);

  private TopologyBootstrap() {}

  /**
   * @param authoritative true on the node holding the cluster metadata (the root's sequencer node)
   * @throws CorruptMetadataException when the stored metadata is corrupt
   * @throws IllegalArgumentException when the configured nodes lack a node the stored topology
   *     places a role or replica on
   */
  public static Topology resolve(Topology configured, MetadataStore store, boolean authoritative)
      throws IOException {
    Optional<Topology> loaded = store.load();
    if (loaded.isEmpty()) {
      store.write(configured);
      return configured;
    }
    Topology stored = loaded.get();
    Topology merged;
    try {
      merged =
          new Topology(
              stored.version(),
              List.copyOf(configured.nodes().values()),
              stored.colors(),
              stored.shards());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the stored cluster metadata "
              + store.file()
              + " (topology version "
              + stored.version()
              + ") does not fit the configured nodes: "
              + e.getMessage(),
          e);
    }
    if (!new HashSet<>(configured.colors()).equals(new HashSet<>(stored.colors()))
        || !new HashSet<>(configured.shards()).equals(new HashSet<>(stored.shards()))) {
      LOG.info(
          "using the colors and shards of the stored cluster metadata {} (topology version {});"
              + " the cluster file's differ (colors are added with 'flexlog colors add')",
          store.file(),
          stored.version());
    }
    if (!merged.nodes().equals(stored.nodes())) {
      if (authoritative) {
        merged =
            new Topology(
                stored.version() + 1,
                List.copyOf(merged.nodes().values()),
                merged.colors(),
                merged.shards());
        store.write(merged);
        LOG.info(
            "node addresses differ from the stored cluster metadata: topology version {} now",
            merged.version());
      }
    }
    return merged;
  }
}
