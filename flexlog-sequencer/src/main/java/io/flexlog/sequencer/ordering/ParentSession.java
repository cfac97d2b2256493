package io.flexlog.sequencer.ordering;

import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * This node's side of its link to one parent sequencer node: the current connection (null while
 * down) and every range request sent or to be sent there that has no answer yet, by request id.
 * Request ids increase from 1 within this node's incarnation; the parent deduplicates by them (see
 * {@link ChildRegistry}), so a request is re-sent under its id whenever a connection comes up.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ParentSession {
  final int parentNodeId;
  private final Long2ObjectHashMap<UpwardBatch> outstanding = new Long2ObjectHashMap<>();
  private PeerLink link;
  private long nextRequestId = 1;
  private long oldest = 1;

  ParentSession(int parentNodeId) {
    this.parentNodeId = parentNodeId;
  }

  PeerLink link() {
    return link;
  }

  void link(PeerLink link) {
    this.link = link;
  }

  /** Gives the batch the next request id and keeps it until {@link #complete}. */
  void register(UpwardBatch batch) {
    batch.requestId = nextRequestId++;
    outstanding.put(batch.requestId, batch);
  }

  /** Removes and returns the batch answered under {@code requestId}, or null if none waits. */
  UpwardBatch complete(long requestId) {
    return outstanding.remove(requestId);
  }

  UpwardBatch outstanding(long requestId) {
    return outstanding.get(requestId);
  }

  boolean hasOutstanding() {
    return !outstanding.isEmpty();
  }

  /** The smallest request id still without an answer (the next id when none). */
  long oldestOutstanding() {
    while (oldest < nextRequestId && !outstanding.containsKey(oldest)) {
      oldest++;
    }
    return oldest;
  }

  /** The outstanding batches in request-id order (for re-sending on a new connection). */
  List<UpwardBatch> inRequestOrder() {
    List<UpwardBatch> batches = new ArrayList<>(outstanding.values());
    batches.sort((a, b) -> Long.compare(a.requestId, b.requestId));
    return batches;
  }

  /** Every outstanding batch, in no particular order. */
  Iterable<UpwardBatch> all() {
    return outstanding.values();
  }
}
