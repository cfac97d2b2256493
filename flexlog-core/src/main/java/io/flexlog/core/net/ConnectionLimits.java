package io.flexlog.core.net;

import java.time.Duration;

/**
 * What one accepted connection of a node's data-plane port may hold (docs/operations.md,
 * "Connection limits"): enforced by {@link ConnectionGuard}, each violation closes the connection
 * and is logged once with the peer's address.
 *
 * @param idleTimeout a connection with no byte read or written for this long is closed
 * @param frameTimeout a frame whose first byte arrived this long ago but not its last is closed
 * @param maxFrameBytes the largest frame a peer may announce, length field included: the bound on
 *     what one connection makes the node buffer
 * @param maxConnections the most connections open at once on the port; more are closed at accept
 */
public record ConnectionLimits(
    Duration idleTimeout, Duration frameTimeout, int maxFrameBytes, int maxConnections) {
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);

  public ConnectionLimits {
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idle timeout must be > 0, got " + idleTimeout);
    }
    if (frameTimeout.isNegative() || frameTimeout.isZero()) {
      throw new IllegalArgumentException("frame timeout must be > 0, got " + frameTimeout);
    }
    if (maxFrameBytes < 16 || maxFrameBytes > Transport.MAX_FRAME_BYTES) {
      throw new IllegalArgumentException(
          "max frame bytes must be in 16.." + Transport.MAX_FRAME_BYTES + ", got " + maxFrameBytes);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("max connections must be > 0, got " + maxConnections);
    }
  }

  /** The defaults: the largest frame the transport allows and {@link #defaultMaxConnections}. */
  public static ConnectionLimits defaults() {
    return new ConnectionLimits(
        DEFAULT_IDLE_TIMEOUT,
        DEFAULT_FRAME_TIMEOUT,
        Transport.MAX_FRAME_BYTES,
        defaultMaxConnections());
  }

  /** These limits with another bound on a frame. */
  public ConnectionLimits withMaxFrameBytes(int bytes) {
    return new ConnectionLimits(idleTimeout, frameTimeout, bytes, maxConnections);
  }

  /**
   * Three quarters of the process's file-descriptor limit (the rest stays for log files, segments
   * and outgoing links), or 10,000 where the JVM cannot tell.
   */
  public static int defaultMaxConnections() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      long fds = unix.getMaxFileDescriptorCount();
      if (fds > 0) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, fds * 3 / 4));
      }
    }
    return 10_000;
  }
}
