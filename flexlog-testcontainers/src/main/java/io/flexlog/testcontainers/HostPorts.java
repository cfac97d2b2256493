package io.flexlog.testcontainers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Blocks of free consecutive TCP ports on the host, for containers on the host network. Blocks come
 * from below the Linux ephemeral range (32768+), where ports bound to port 0 land, so that a block
 * does not collide with the sockets of tests running meanwhile.
 */
final class HostPorts {
  static final int LOWEST = 20000;
  static final int HIGHEST = 32000;
  private static final int ATTEMPTS = 200;

  private HostPorts() {}

  /**
   * The first port of {@code count} consecutive ports that are free on {@code host} now.
   *
   * @throws IllegalArgumentException when {@code count} is not in 1..1000
   * @throws IllegalStateException when no such block was found after many tries
   */
  static int freeBlock(String host, int count) {
    if (count < 1 || count > 1000) {
      throw new IllegalArgumentException("count must be in 1..1000, got " + count);
    }
    InetAddress address = address(host);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int first = random.nextInt(LOWEST, HIGHEST - count + 1);
      if (allFree(address, first, count)) {
        return first;
      }
    }
    throw new IllegalStateException(
        "no "
            + count
            + " consecutive free ports on "
            + host
            + " in "
            + LOWEST
            + ".."
            + HIGHEST
            + " after "
            + ATTEMPTS
            + " tries");
  }

  private static boolean allFree(InetAddress address, int first, int count) {
    for (int port = first; port < first + count; port++) {
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(false);
        socket.bind(new InetSocketAddress(address, port));
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  private static InetAddress address(String host) {
    try {
      return InetAddress.getByName(host);
    } catch (IOException e) {
      throw new IllegalArgumentException("unknown host " + host, e);
    }
  }
}
