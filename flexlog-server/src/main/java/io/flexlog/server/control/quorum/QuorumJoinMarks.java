package io.flexlog.server.control.quorum;

import io.flexlog.sequencer.ordering.JoinMarkStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The join marks of a sequencer node's roles in the metadata quorum
 * (docs/architecture.md#join-marks), so that they follow a role to the backup that takes it over: a
 * role created on this node loads the marks of its color from this node's copy of the metadata, and
 * one that takes a mark saves it through the quorum, merged into what is kept there ({@link
 * JoinMarkCommand}), before it issues again.
 *
 * <p>The sequencer node starts before its quorum member; until {@link #attach} a role loads no
 * marks from here and its saves wait. Saves block on the quorum, so they run on one thread of their
 * own ({@code flexlog-join-marks-N}), never on the node's event loop.
 */
public final class QuorumJoinMarks implements JoinMarkStore, AutoCloseable {
  private final CompletableFuture<MetadataQuorum> quorum = new CompletableFuture<>();
  private final ExecutorService saver;

  public QuorumJoinMarks(int nodeId) {
    this.saver =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-join-marks-" + nodeId);
              t.setDaemon(true);
              return t;
            });
  }

  /** The quorum member has started: saves go through {@code started} from now on. */
  public void attach(MetadataQuorum started) {
    quorum.complete(started);
  }

  @Override
  public List<Mark> load(int colorId) {
    MetadataQuorum q = quorum.getNow(null);
    return q == null ? List.of() : q.localJoinMarks().getOrDefault(colorId, List.of());
  }

  /**
   * @return completed once the quorum committed the marks, or exceptionally with the quorum's
   *     {@code MetadataUnavailableException}
   */
  @Override
  public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
    List<Mark> copy = List.copyOf(marks);
    return quorum.thenAcceptAsync(q -> q.saveJoinMarks(colorId, copy), saver);
  }

  /**
   * Every leader of a role saves its marks here. Before {@link #attach} nothing is loaded, but a
   * role with failover checks its marks only after it took its lease through the quorum.
   */
  @Override
  public boolean complete() {
    return true;
  }

  @Override
  public void close() {
    saver.shutdownNow();
  }
}
