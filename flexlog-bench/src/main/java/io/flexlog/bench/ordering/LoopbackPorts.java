package io.flexlog.bench.ordering;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks free loopback ports for nodes whose addresses must be known before they start (every node
 * of a topology, every Ratis peer). The ports are held open together, so they are distinct, and
 * released just before use; another process may take one in between, so callers retry a start that
 * fails to bind.
 */
final class LoopbackPorts {
  private LoopbackPorts() {}

  static int[] pick(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>(count);
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }
}
