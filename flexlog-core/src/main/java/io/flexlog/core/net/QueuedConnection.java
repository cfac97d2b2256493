package io.flexlog.core.net;

import io.flexlog.core.model.NodeAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An outgoing connection to one node that connects on first use and again on the next write after a
 * failure. Frames written while it is connecting are queued (at most {@link #MAX_QUEUED}, more are
 * dropped) and written and flushed once it is up, or dropped if the attempt fails: the caller's
 * retry timer sends them again. A failed attempt and a connection that closes both run {@code
 * onLost}.
 *
 * <p>Ownership: a written frame belongs to this connection, which writes or releases it. A frame
 * written with a {@link WriteListener} tells it which of the two happened, exactly once.
 *
 * <p>Threading: confined to the event loop of the bootstrap (from {@link ClientBootstrap}); every
 * method must be called on it.
 */
public final class QueuedConnection {
  /** The most frames held while connecting. */
  public static final int MAX_QUEUED = 4096;

  private static final Logger LOG = LoggerFactory.getLogger(QueuedConnection.class);

  private final NodeAddress node;
  private final Bootstrap bootstrap;
  private final Runnable onLost;
  private static final WriteListener NONE = written -> {};

  private final ArrayDeque<ByteBuf> queued = new ArrayDeque<>();
  private final ArrayDeque<WriteListener> queuedListeners = new ArrayDeque<>();
  private Channel channel;
  private boolean connecting;
  private boolean closed;
  private boolean dirty;
  private String lastFailure;

  /**
   * @param bootstrap opens the connection; may be shared by the connections of one event loop
   * @param onLost run on the event loop when the connection closes (also by {@link #close}) or an
   *     attempt fails while this connection is open
   */
  public QueuedConnection(NodeAddress node, Bootstrap bootstrap, Runnable onLost) {
    this.node = node;
    this.bootstrap = bootstrap;
    this.onLost = onLost;
  }

  /** The node this connection goes to. */
  public NodeAddress node() {
    return node;
  }

  /** Starts connecting unless connected, connecting or closed. */
  public void connect() {
    if (closed || connecting || isConnected()) {
      return;
    }
    connecting = true;
    bootstrap.connect(node.host(), node.port()).addListener(f -> onConnect((ChannelFuture) f));
  }

  private void onConnect(ChannelFuture future) {
    connecting = false;
    if (future.isSuccess()) {
      channel = future.channel();
      lastFailure = null;
      if (closed) {
        channel.close();
        return;
      }
      channel.closeFuture().addListener(c -> onLost.run());
      while (!queued.isEmpty()) {
        WriteListener listener = queuedListeners.poll();
        writeNow(queued.poll(), listener == NONE ? null : listener);
      }
      channel.flush();
    } else {
      LOG.debug("cannot reach node {} at {}: {}", node.id(), node.hostPort(), future.cause());
      lastFailure = describe(future.cause());
      drop();
      if (!closed) {
        onLost.run();
      }
    }
  }

  /** Writes a frame, sent on the next {@link #flush()}; queues it (and connects) if not up. */
  public void write(ByteBuf frame) {
    write(frame, null);
  }

  /**
   * Like {@link #write(ByteBuf)}, and tells {@code listener} (if not null) once whether the frame
   * was written to the socket or dropped; a dropped frame may be reported before this returns.
   */
  public void write(ByteBuf frame, WriteListener listener) {
    if (isConnected()) {
      writeNow(frame, listener);
      dirty = true;
      return;
    }
    if (queued.size() >= MAX_QUEUED || closed) {
      ReferenceCountUtil.release(frame);
      if (listener != null) {
        listener.onWrite(false);
      }
      return;
    }
    queued.add(frame);
    queuedListeners.add(listener == null ? NONE : listener);
    connect();
  }

  private void writeNow(ByteBuf frame, WriteListener listener) {
    if (listener == null) {
      channel.write(frame, channel.voidPromise());
    } else {
      channel.write(frame).addListener(f -> listener.onWrite(f.isSuccess()));
    }
  }

  /** Flushes what {@link #write} wrote to the connection since the last flush. */
  public void flush() {
    if (dirty) {
      dirty = false;
      channel.flush();
    }
  }

  public boolean isConnected() {
    return channel != null && channel.isActive();
  }

  /**
   * The connection's state for an error message: {@code connected}, {@code connecting}, {@code
   * closed}, or why the last attempt failed ({@code cannot connect: Connection refused}, {@code
   * cannot connect: Too many open files}, ...).
   */
  public String state() {
    if (isConnected()) {
      return "connected";
    }
    if (lastFailure != null) {
      return "cannot connect: " + lastFailure;
    }
    if (connecting) {
      return "connecting";
    }
    return channel != null ? "connection closed" : "not connected yet";
  }

  // Netty's connect exceptions append ": /host:port" to the cause; the message names the node.
  private static String describe(Throwable cause) {
    String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
    int address = message.indexOf(": /");
    return address > 0 ? message.substring(0, address) : message;
  }

  /** Closes the connection and releases queued frames; later writes are released at once. */
  public void close() {
    closed = true;
    drop();
    if (channel != null) {
      channel.close();
    }
  }

  private void drop() {
    while (!queued.isEmpty()) {
      ReferenceCountUtil.release(queued.poll());
      queuedListeners.poll().onWrite(false);
    }
  }
}
