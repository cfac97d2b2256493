package io.flexlog.core.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Finds runs of consecutive free ports on 127.0.0.1 for clusters with fixed port layouts. */
public final class FreePorts {
  private FreePorts() {}

  public static int consecutive(int count) {
    for (int attempt = 0; attempt < 200; attempt++) {
      // Below the kernel's ephemeral range (32768-60999 by default), where an outgoing connection
      // can take a port between this check and the node's bind.
      int base = ThreadLocalRandom.current().nextInt(10_000, 32_000 - count);
      if (allFree(base, count)) {
        return base;
      }
    }
    throw new IllegalStateException("no " + count + " consecutive free ports found");
  }

  private static boolean allFree(int base, int count) {
    for (int port = base; port < base + count; port++) {
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }
}
