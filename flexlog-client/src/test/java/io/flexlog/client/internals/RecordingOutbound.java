package io.flexlog.client.internals;

import io.flexlog.core.net.WriteListener;
import io.flexlog.core.protocol.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link Outbound} that keeps what the roles send. A frame sent in parts (a header, then its
 * payload) is joined back into one, so each {@link Sent} is a whole frame. A frame sent with a
 * {@link WriteListener} is reported written at once, unless {@link #holdWrites} keeps it waiting,
 * as in a connection's outbound buffer, until {@link #completeWrites}.
 */
final class RecordingOutbound implements Outbound {
  /** One frame sent to a node. */
  record Sent(int node, ByteBuf frame) {
    byte type() {
      return FrameDescriptor.type(frame);
    }

    long requestId() {
      return FrameDescriptor.requestId(frame);
    }
  }

  private final List<Sent> sent = new ArrayList<>();
  private final Map<Integer, ByteBuf> partial = new HashMap<>();
  private final List<ByteBuf> taken = new ArrayList<>();
  private final List<WriteListener> heldWrites = new ArrayList<>();
  int flushes;

  /** While set, frames stay unwritten until {@link #completeWrites}. */
  boolean holdWrites;

  @Override
  public ByteBufAllocator alloc() {
    return UnpooledByteBufAllocator.DEFAULT;
  }

  @Override
  public void send(int nodeId, ByteBuf frame) {
    ByteBuf head = partial.remove(nodeId);
    ByteBuf whole = head == null ? frame : Unpooled.wrappedBuffer(head, frame);
    int length = whole.getInt(whole.readerIndex() + FrameDescriptor.LENGTH_OFFSET) + 4;
    if (whole.readableBytes() < length) {
      partial.put(nodeId, whole);
    } else {
      sent.add(new Sent(nodeId, whole));
    }
  }

  @Override
  public void send(int nodeId, ByteBuf frame, WriteListener onWrite) {
    send(nodeId, frame);
    written(onWrite);
  }

  @Override
  public void send(int nodeId, ByteBuf header, ByteBuf payload, WriteListener onWrite) {
    send(nodeId, header, payload);
    written(onWrite);
  }

  private void written(WriteListener onWrite) {
    if (holdWrites) {
      heldWrites.add(onWrite);
    } else {
      onWrite.onWrite(true);
    }
  }

  /** Reports every held frame written (or dropped); returns how many there were. */
  int completeWrites(boolean written) {
    List<WriteListener> held = new ArrayList<>(heldWrites);
    heldWrites.clear();
    held.forEach(listener -> listener.onWrite(written));
    return held.size();
  }

  @Override
  public void flush() {
    flushes++;
  }

  /** The frames sent since the last call, in order. */
  List<Sent> take() {
    List<Sent> out = new ArrayList<>(sent);
    sent.clear();
    out.forEach(s -> taken.add(s.frame()));
    return out;
  }

  /** The frames of one type sent since the last call (the others are dropped). */
  List<Sent> take(byte type) {
    return take().stream().filter(s -> s.type() == type).toList();
  }

  void releaseAll() {
    take();
    taken.forEach(ByteBuf::release);
    taken.clear();
    partial.values().forEach(ByteBuf::release);
    partial.clear();
  }
}
