package io.flexlog.bench.ordering;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.sequencer.SequencerConfig;
import io.flexlog.sequencer.SequencerNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The sequencer nodes of a {@link SequencerTree}, running in this process on loopback, each with
 * its own data directory. Nodes start parents first, so a child that connects to its parent at
 * start finds it listening.
 *
 * <p>Threading: {@link #start} and {@link #close} are called by the benchmark's controlling thread.
 */
final class SequencerCluster implements AutoCloseable {
  private final List<SequencerNode> nodes;

  private SequencerCluster(List<SequencerNode> nodes) {
    this.nodes = nodes;
  }

  /**
   * Starts every sequencer node of {@code tree} on the port its topology names.
   *
   * @param dataRoot a directory for the nodes' epoch files; node {@code i} uses {@code
   *     dataRoot/sequencer-i}
   * @throws IOException when a node cannot start (a port taken since it was picked, an unwritable
   *     directory); the nodes already started are closed again
   */
  static SequencerCluster start(SequencerTree tree, Path dataRoot) throws IOException {
    List<SequencerNode> started = new ArrayList<>();
    try {
      for (int id : tree.sequencerNodeIds()) {
        NodeAddress address = tree.topology().node(id);
        Path dataDir = Files.createDirectories(dataRoot.resolve("sequencer-" + id));
        SequencerConfig config =
            SequencerConfig.builder()
                .nodeId(id)
                .host(address.host())
                .port(address.port())
                .dataDir(dataDir)
                .build();
        SequencerNode node = new SequencerNode(config, tree.topology(), new SimpleMeterRegistry());
        started.add(node);
        node.start();
      }
      return new SequencerCluster(List.copyOf(started));
    } catch (IOException | RuntimeException e) {
      closeAll(started);
      throw e;
    }
  }

  /** Closes the nodes, children first. */
  @Override
  public void close() {
    closeAll(nodes);
  }

  private static void closeAll(List<SequencerNode> nodes) {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      nodes.get(i).close();
    }
  }
}
