package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.ProtocolException;
import java.util.function.ObjIntConsumer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayQueue;

/**
 * The child sequencer nodes connected to this node, and per child the answers to its range
 * requests: the deduplication that makes a re-sent request safe.
 *
 * <p>A child names each range request by a request id, unique within the child's incarnation (its
 * epoch at start, sent in SEQUENCER_HELLO). When its connection breaks, the child re-sends every
 * request it has no answer for, under the same id. Here each id is admitted once: a re-sent id that
 * is still being ordered is ignored (the answer goes to whichever connection of the child is
 * current when it is ready), and one that was answered gets the same range again. So a re-sent
 * batch never consumes a second range. A child reports in each request the oldest id it still
 * awaits; answers below it are forgotten, which bounds this state by the child's outstanding
 * requests. A newer incarnation of a child starts afresh; a connection of an older one is refused.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ChildRegistry {
  /** {@link #admit}: the request id is new and now pending. */
  static final long NEW = -1L;

  /** {@link #admit}: the request id is admitted and still being ordered. */
  static final long PENDING = 0L;

  private final Int2ObjectHashMap<Child> children = new Int2ObjectHashMap<>();

  /** One child node as of its latest incarnation. */
  static final class Child {
    final int nodeId;
    int incarnation;
    PeerLink link;
    final Long2LongHashMap answers = new Long2LongHashMap(64, 0.65f, NEW);
    final LongArrayQueue admitted = new LongArrayQueue(64, Long.MIN_VALUE);
    long answeredBelow = 1;

    Child(int nodeId) {
      this.nodeId = nodeId;
    }
  }

  /**
   * SEQUENCER_HELLO: makes {@code link} the current connection of the child. A larger incarnation
   * than known forgets the earlier incarnation's requests. The same HELLO again on the same
   * connection is accepted and changes nothing.
   *
   * @return null on success, or why the connection was refused
   */
  Rejection identify(PeerLink link, int childNodeId, int incarnation) {
    if (link.kind() == PeerLink.Kind.CHILD
        && link.peerNodeId() == childNodeId
        && link.incarnation() == incarnation) {
      return null; // said again after a topology change: nothing changes here
    }
    if (!link.isUnidentified()) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "connection already speaks for "
              + link
              + ", cannot identify it as sequencer node "
              + childNodeId);
    }
    Child child = children.get(childNodeId);
    if (child == null) {
      child = new Child(childNodeId);
      children.put(childNodeId, child);
    }
    if (incarnation < child.incarnation) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "sequencer node "
              + childNodeId
              + " presents incarnation "
              + incarnation
              + " but incarnation "
              + child.incarnation
              + " already connected: an older process is still running");
    }
    if (incarnation > child.incarnation) {
      child.incarnation = incarnation;
      child.answers.clear();
      child.admitted.clear();
      child.answeredBelow = 1;
    }
    link.identifyChild(childNodeId, incarnation);
    child.link = link;
    return null;
  }

  /** The child a link speaks for if it is that child's current connection, else null. */
  Child current(PeerLink link) {
    Child child = children.get(link.peerNodeId());
    return child != null && child.link == link ? child : null;
  }

  /** The current connection of the child if it is still in {@code incarnation}, else null. */
  PeerLink linkOf(int childNodeId, int incarnation) {
    Child child = children.get(childNodeId);
    return child != null && child.incarnation == incarnation ? child.link : null;
  }

  /** The current connection of the child in whatever incarnation, or null. */
  PeerLink currentLink(int childNodeId) {
    Child child = children.get(childNodeId);
    return child == null ? null : child.link;
  }

  /**
   * Admits a range request: forgets answers below {@code oldestOutstanding}, then returns {@link
   * #NEW} (now pending), {@link #PENDING}, or the first SN of the range it was given.
   *
   * @throws ProtocolException when the child re-sends a request it reported as answered
   */
  long admit(Child child, long requestId, long oldestOutstanding) {
    if (oldestOutstanding > child.answeredBelow) {
      child.answeredBelow = oldestOutstanding;
      while (!child.admitted.isEmpty() && child.admitted.peekLong() < oldestOutstanding) {
        child.answers.remove(child.admitted.pollLong());
      }
    }
    if (requestId < child.answeredBelow) {
      throw new ProtocolException(
          "sequencer node "
              + child.nodeId
              + " re-sent range request "
              + requestId
              + " after reporting every request below "
              + child.answeredBelow
              + " answered");
    }
    long known = child.answers.get(requestId);
    if (known == NEW) {
      child.answers.put(requestId, PENDING);
      child.admitted.addLong(requestId);
    }
    return known;
  }

  /** Records the range given to a pending request, if the child is still in that incarnation. */
  void answered(int childNodeId, int incarnation, long requestId, long firstSn) {
    Child child = children.get(childNodeId);
    if (child != null
        && child.incarnation == incarnation
        && child.answers.get(requestId) == PENDING) {
      child.answers.put(requestId, firstSn);
    }
  }

  /** Forgets a pending request that was refused, so that the child's retry is admitted afresh. */
  void refused(int childNodeId, int incarnation, long requestId) {
    Child child = children.get(childNodeId);
    if (child != null
        && child.incarnation == incarnation
        && child.answers.get(requestId) == PENDING) {
      child.answers.remove(requestId);
    }
  }

  /** Calls {@code action} with the node id and connection of every connected child. */
  void forEachConnected(ObjIntConsumer<PeerLink> action) {
    for (Child child : children.values()) {
      if (child.link != null) {
        action.accept(child.link, child.nodeId);
      }
    }
  }

  /** Forgets a closed connection (the child's state stays for its reconnect). */
  void onClosed(PeerLink link) {
    Child child = current(link);
    if (child != null) {
      child.link = null;
    }
  }
}
