package io.flexlog.core.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces {@link ConnectionLimits} on the accepted connections of one data-plane port. {@link
 * #newHandler} goes first in each accepted channel's pipeline, before the frame decoder: it follows
 * the frame boundaries on the raw bytes (the 4-byte length fields) to refuse an announced frame
 * larger than the bound before any of it is buffered, and to time out a frame that stops halfway.
 * Each closed connection is logged once, with the peer's address and the setting that closed it;
 * refusals at the connection limit at most once a second (with a count of those not logged).
 *
 * <p>Threading: the handler runs on its channel's event loop; the open-connection count is shared
 * by all loops of the port.
 */
public final class ConnectionGuard {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final long REFUSAL_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

  private final String port;
  private final ConnectionLimits limits;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong lastRefusalLogNs =
      new AtomicLong(System.nanoTime() - 2 * REFUSAL_LOG_INTERVAL_NS);
  private final AtomicLong refusalsNotLogged = new AtomicLong();

  /**
   * @param port names the port in log lines, e.g. "replica 1"
   */
  public ConnectionGuard(String port, ConnectionLimits limits) {
    this.port = port;
    this.limits = limits;
  }

  public ConnectionLimits limits() {
    return limits;
  }

  /** Connections open now. */
  public int openConnections() {
    return open.get();
  }

  /** A handler for one accepted channel. */
  public ChannelDuplexHandler newHandler() {
    return new Handler();
  }

  private void logRefusal(ChannelHandlerContext ctx) {
    long now = System.nanoTime();
    long last = lastRefusalLogNs.get();
    if (now - last >= REFUSAL_LOG_INTERVAL_NS && lastRefusalLogNs.compareAndSet(last, now)) {
      long suppressed = refusalsNotLogged.getAndSet(0);
      LOG.warn(
          "{}: refusing connection from {}: {} connections open (max-connections){}",
          port,
          ctx.channel().remoteAddress(),
          limits.maxConnections(),
          suppressed > 0 ? "; " + suppressed + " more refused since the last such line" : "");
    } else {
      refusalsNotLogged.incrementAndGet();
    }
  }

  private final class Handler extends ChannelDuplexHandler {
    private boolean counted;
    private boolean closing;
    private long lastActivityNs;
    private long frameStartNs; // 0 when between frames
    private int headerBytes; // bytes of the current length field seen, 0..4
    private int header;
    private long frameRemaining;
    private ScheduledFuture<?> check;

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      if (open.incrementAndGet() > limits.maxConnections()) {
        open.decrementAndGet();
        closing = true;
        logRefusal(ctx);
        ctx.close();
        return;
      }
      counted = true;
      lastActivityNs = System.nanoTime();
      long periodNs =
          Math.max(
              TimeUnit.MILLISECONDS.toNanos(10),
              Math.min(
                      limits.idleTimeout().toNanos(),
                      Math.min(limits.frameTimeout().toNanos(), TimeUnit.SECONDS.toNanos(4)))
                  / 4);
      check =
          ctx.executor()
              .scheduleAtFixedRate(() -> checkTimes(ctx), periodNs, periodNs, TimeUnit.NANOSECONDS);
      super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (counted) {
        counted = false;
        open.decrementAndGet();
      }
      if (check != null) {
        check.cancel(false);
      }
      super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      if (closing) {
        io.netty.util.ReferenceCountUtil.release(msg);
        return;
      }
      long now = System.nanoTime();
      lastActivityNs = now;
      if (msg instanceof ByteBuf bytes && !follow(ctx, bytes, now)) {
        bytes.release();
        return;
      }
      super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
        throws Exception {
      lastActivityNs = System.nanoTime();
      super.write(ctx, msg, promise);
    }

    /**
     * Follows frame boundaries over {@code bytes}; false when the connection was closed (the whole
     * frames before the refused one were passed on first).
     */
    private boolean follow(ChannelHandlerContext ctx, ByteBuf bytes, long now) {
      int at = bytes.readerIndex();
      int end = bytes.writerIndex();
      int headerStart = at;
      while (at < end) {
        if (frameRemaining > 0) {
          int n = (int) Math.min(frameRemaining, end - at);
          frameRemaining -= n;
          at += n;
          if (frameRemaining == 0) {
            frameStartNs = 0;
          }
          continue;
        }
        if (headerBytes == 0) {
          frameStartNs = now;
          headerStart = at;
        }
        header = (header << 8) | (bytes.getByte(at++) & 0xFF);
        if (++headerBytes == 4) {
          long frameBytes = 4L + (header & 0xFFFF_FFFFL);
          headerBytes = 0;
          header = 0;
          if (frameBytes > limits.maxFrameBytes()) {
            if (headerStart > bytes.readerIndex()) {
              ctx.fireChannelRead(
                  bytes.retainedSlice(bytes.readerIndex(), headerStart - bytes.readerIndex()));
            }
            close(
                ctx,
                "a frame of "
                    + frameBytes
                    + " bytes announced, above max-frame-bytes = "
                    + limits.maxFrameBytes());
            return false;
          }
          frameRemaining = frameBytes - 4;
          if (frameRemaining == 0) {
            frameStartNs = 0;
          }
        }
      }
      return true;
    }

    private void checkTimes(ChannelHandlerContext ctx) {
      if (closing) {
        return;
      }
      long now = System.nanoTime();
      if (frameStartNs != 0 && now - frameStartNs > limits.frameTimeout().toNanos()) {
        close(
            ctx,
            "a frame started "
                + TimeUnit.NANOSECONDS.toMillis(now - frameStartNs)
                + " ms ago is still incomplete (frame-timeout-ms = "
                + limits.frameTimeout().toMillis()
                + ")");
      } else if (now - lastActivityNs > limits.idleTimeout().toNanos()) {
        close(
            ctx,
            "idle for "
                + TimeUnit.NANOSECONDS.toMillis(now - lastActivityNs)
                + " ms (idle-timeout-ms = "
                + limits.idleTimeout().toMillis()
                + ")");
      }
    }

    private void close(ChannelHandlerContext ctx, String why) {
      if (closing) {
        return;
      }
      closing = true;
      LOG.warn("{}: closing connection from {}: {}", port, ctx.channel().remoteAddress(), why);
      ctx.close();
    }
  }
}
