package io.flexlog.server.control;

import io.flexlog.core.model.Topology;
import java.io.IOException;

/**
 * Where the {@link ClusterController} commits topology versions: the {@link MetadataStore} of a
 * single node ({@link #local}), or the metadata quorum (docs/architecture.md, "Metadata quorum"),
 * where another node may commit a version first.
 */
public interface MetadataLog {
  /** The outcome of {@link #commit}: {@code committed} is the topology that holds afterwards. */
  record Commit(boolean applied, Topology committed) {}

  /**
   * Makes {@code next} the committed topology if {@code expected} still is. Otherwise nothing
   * changes and the result carries the topology that was committed meanwhile.
   *
   * @throws IOException when {@code next} cannot be made durable; nothing changed
   * @throws io.flexlog.core.error.MetadataUnavailableException when the quorum cannot commit now
   *     (the message says whether {@code next} may still be committed)
   */
  Commit commit(Topology expected, Topology next) throws IOException;

  /**
   * The committed topology, no older than any version committed before the call; {@code cached} is
   * the caller's copy, which a single-node log returns.
   *
   * @throws io.flexlog.core.error.MetadataUnavailableException when the quorum cannot answer now
   */
  Topology read(Topology cached);

  /** The log of a cluster whose metadata lives on one node: its {@code cluster-metadata} file. */
  static MetadataLog local(MetadataStore store) {
    return new MetadataLog() {
      @Override
      public Commit commit(Topology expected, Topology next) throws IOException {
        store.write(next);
        return new Commit(true, next);
      }

      @Override
      public Topology read(Topology cached) {
        return cached;
      }
    };
  }
}
