package io.flexlog.replica.atomic;

import io.flexlog.replica.replication.Connection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * A client connection without a socket: frames written are held until flushed, and only flushed
 * frames can be drained, so a test also sees a reply that was written but never flushed.
 */
final class RecordingConnection implements Connection {
  private final List<ByteBuf> unflushed = new ArrayList<>();
  private final List<ByteBuf> flushed = new ArrayList<>();
  private boolean active = true;

  @Override
  public ByteBufAllocator alloc() {
    return ByteBufAllocator.DEFAULT;
  }

  @Override
  public void write(ByteBuf frame) {
    if (active) {
      unflushed.add(frame);
    } else {
      frame.release();
    }
  }

  @Override
  public void flush() {
    flushed.addAll(unflushed);
    unflushed.clear();
  }

  @Override
  public boolean isActive() {
    return active;
  }

  @Override
  public boolean isWritable() {
    return active;
  }

  @Override
  public void close() {
    active = false;
    unflushed.forEach(ByteBuf::release);
    unflushed.clear();
  }

  /** The frames flushed since the last call, in write order; the caller releases them. */
  List<ByteBuf> drain() {
    List<ByteBuf> frames = new ArrayList<>(flushed);
    flushed.clear();
    return frames;
  }

  /** How many frames were written and not flushed yet. */
  int unflushedCount() {
    return unflushed.size();
  }

  /** Releases everything still held. */
  void releaseAll() {
    flushed.forEach(ByteBuf::release);
    flushed.clear();
    unflushed.forEach(ByteBuf::release);
    unflushed.clear();
  }
}
