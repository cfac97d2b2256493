package io.flexlog.sim;

import io.flexlog.core.protocol.Frames;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The simulated network: every open {@link SimLink}, delivery of one queue's head frames at a time
 * in an order the seed picks, and connection losses. A close asked for by a process (a protocol
 * error, a node shutting a peer out) takes effect after the current event, as a real close reaches
 * the other side later.
 */
final class SimNetwork {
  private final List<SimLink> links = new ArrayList<>();
  private final List<SimLink> closing = new ArrayList<>();

  /** Sees every frame just before it is delivered (validated, not yet handled). */
  interface Observer {
    void onDeliver(SimLink.End to, ByteBuf frame);
  }

  private final SimTrace trace;
  private Observer observer = (to, frame) -> {};
  private int linkSeq;
  long frames;
  long drops;

  SimNetwork(SimTrace trace) {
    this.trace = trace;
  }

  void observe(Observer observer) {
    this.observer = observer;
  }

  SimLink connect(SimLink.Endpoint from, SimLink.Endpoint to) {
    SimLink link = new SimLink(++linkSeq, this, from, to);
    links.add(link);
    trace.note("connect " + link.describe());
    return link;
  }

  List<SimLink> links() {
    return links;
  }

  boolean connected(SimLink.Endpoint from, SimLink.Endpoint to) {
    for (SimLink link : links) {
      if (link.initiator.owner == from && link.acceptor.owner == to) {
        return true;
      }
    }
    return false;
  }

  /** Delivers one to four frames of one busy queue; false if nothing is in flight. */
  boolean deliverSome(Random random) {
    List<SimLink.End> busy = new ArrayList<>();
    for (SimLink link : links) {
      if (!link.initiator.inbox.isEmpty()) {
        busy.add(link.initiator);
      }
      if (!link.acceptor.inbox.isEmpty()) {
        busy.add(link.acceptor);
      }
    }
    if (busy.isEmpty()) {
      return false;
    }
    SimLink.End to = busy.get(random.nextInt(busy.size()));
    int count = random.nextBoolean() ? 1 : 1 + random.nextInt(4);
    for (int i = 0; i < count && to.link().open && !to.inbox.isEmpty(); i++) {
      deliverHead(to);
    }
    return true;
  }

  /** Delivers everything in flight, queue by queue, until the network is empty. */
  boolean deliverAll(Runnable afterEachFrame) {
    boolean moved = false;
    for (SimLink link : new ArrayList<>(links)) {
      while (link.open && link.hasQueued()) {
        deliverHead(!link.acceptor.inbox.isEmpty() ? link.acceptor : link.initiator);
        afterEachFrame.run();
        moved = true;
      }
    }
    return moved;
  }

  private void deliverHead(SimLink.End to) {
    ByteBuf frame = to.inbox.poll();
    frames++;
    try {
      trace.note("deliver " + SimLink.describe(frame) + " to " + to);
      try {
        Frames.validate(frame);
      } catch (RuntimeException e) {
        throw new AssertionError(to.peer.owner.name() + " wrote a malformed frame: " + e, e);
      }
      observer.onDeliver(to, frame);
      to.owner.onFrame(to, frame);
    } finally {
      frame.release();
    }
  }

  /** Loses the connection now: both processes hear of it. */
  void drop(SimLink link, String why) {
    if (!link.open) {
      return;
    }
    trace.note(why);
    links.remove(link);
    link.drop();
    drops++;
    if (link.initiator.owner.alive()) {
      link.initiator.owner.onClosed(link.initiator);
    }
    if (link.acceptor.owner.alive()) {
      link.acceptor.owner.onClosed(link.acceptor);
    }
  }

  void closeLater(SimLink link, String why) {
    if (link.open && !closing.contains(link)) {
      trace.note(why + " (later)");
      closing.add(link);
    }
  }

  /** Carries out the closes processes asked for during the last event. */
  void closePending() {
    while (!closing.isEmpty()) {
      SimLink link = closing.remove(0);
      drop(link, "closed " + link.describe());
    }
  }

  /** A process died: every connection it had is gone. */
  void dropAllOf(SimLink.Endpoint owner) {
    for (SimLink link : new ArrayList<>(links)) {
      if (link.initiator.owner == owner || link.acceptor.owner == owner) {
        drop(link, "lose " + link.describe());
      }
    }
  }

  boolean quiet() {
    for (SimLink link : links) {
      if (link.hasQueued()) {
        return false;
      }
    }
    return closing.isEmpty();
  }
}
