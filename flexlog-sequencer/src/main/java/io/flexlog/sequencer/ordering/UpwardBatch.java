package io.flexlog.sequencer.ordering;

/**
 * One range request this node sent (or will send) to a parent node: the order requests of one route
 * that were aggregated into it (paper §5.2), kept until the answer arrives so the range can be
 * split back over them in order: first the tokens of local shards, in arrival order, then the child
 * requests, in arrival order.
 *
 * <p>{@code sent} and {@code replayed} drive the watermark rule of a broken connection: a request
 * that was sent on a connection that then broke may have been ordered already, so the answer to its
 * re-sent copy can carry SNs below a watermark the parent sends meanwhile; while such a request is
 * outstanding its route holds the color's watermarks back (see {@link ForwardRoute}).
 *
 * <p>Reused through the route's free list. Threading: owned by the node's event loop.
 */
final class UpwardBatch {
  final ColorBatch tokens;
  final ChildParts children = new ChildParts();
  ForwardRoute route;
  long requestId;
  long sentAtNanos;

  /** Written to the parent's current connection. */
  boolean sent;

  /** Written to a connection that broke before the answer came. */
  boolean replayed;

  UpwardBatch(int slotCount) {
    tokens = new ColorBatch(slotCount);
  }

  /** SNs this request asks for. */
  long count() {
    return tokens.size() + children.totalCount();
  }

  /** Order requests merged into it: tokens plus child range requests (the aggregation factor). */
  int requests() {
    return tokens.size() + children.size();
  }

  boolean isEmpty() {
    return tokens.isEmpty() && children.isEmpty();
  }

  void reset() {
    tokens.clear();
    children.clear();
    requestId = 0;
    sentAtNanos = 0;
    sent = false;
    replayed = false;
  }
}
