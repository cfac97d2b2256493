package io.flexlog.replica.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Connection} that records what the state machines write: frames count as sent once
 * flushed. Frames may be written in parts (a header, then payload views); {@link #sent()}
 * reassembles them.
 */
public final class RecordingConnection implements Connection {
  private final List<ByteBuf> unflushed = new ArrayList<>();
  private final ByteBuf flushed = Unpooled.buffer();
  boolean active = true;
  boolean writable = true;
  int flushes;

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
    flushes++;
    for (ByteBuf part : unflushed) {
      flushed.writeBytes(part, part.readerIndex(), part.readableBytes());
      part.release();
    }
    unflushed.clear();
  }

  @Override
  public boolean isActive() {
    return active;
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  /** Closes the connection: what was written and not flushed is lost, as on a real close. */
  @Override
  public void close() {
    active = false;
    unflushed.forEach(ByteBuf::release);
    unflushed.clear();
  }

  /** Parts written and not flushed yet. */
  public int unflushedParts() {
    return unflushed.size();
  }

  /** The complete frames flushed since the last call, as copies the caller releases. */
  public List<ByteBuf> sent() {
    List<ByteBuf> frames = new ArrayList<>();
    while (flushed.readableBytes() >= 4) {
      int length = flushed.getInt(flushed.readerIndex()) + 4;
      ByteBuf frame = Unpooled.buffer(length);
      flushed.readBytes(frame, length);
      frames.add(frame);
    }
    flushed.discardReadBytes();
    return frames;
  }

  /** Releases everything still held. */
  public void releaseAll() {
    unflushed.forEach(ByteBuf::release);
    unflushed.clear();
    flushed.release();
  }
}
