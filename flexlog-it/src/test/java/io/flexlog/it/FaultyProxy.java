package io.flexlog.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of one node, for fault injection: it forwards every connection
 * byte for byte to the node until {@link #cut} closes all of them at once (both sides see the
 * connection reset or closed, as when a network path fails), after which new connections are
 * forwarded again. One thread accepts; two threads per connection copy the bytes.
 */
final class FaultyProxy implements AutoCloseable {
  private final int target;
  private final ServerSocket server;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger cut = new AtomicInteger();
  private volatile boolean closed;

  /** Listens on a free port of 127.0.0.1 and forwards to {@code 127.0.0.1:target}. */
  FaultyProxy(String name, int target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "proxy-" + name);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Connections accepted so far. */
  int accepted() {
    return accepted.get();
  }

  /** Closes every connection open through the proxy; returns how many were cut. */
  int cut() {
    int n = 0;
    for (Socket socket : open) {
      closeQuietly(socket);
      n++;
    }
    cut.addAndGet(n);
    return n;
  }

  /** Sockets closed by {@link #cut} (two per connection: client side and node side). */
  int cutSockets() {
    return cut.get();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        accepted.incrementAndGet();
        Socket node = new Socket();
        try {
          node.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5_000);
        } catch (IOException refused) {
          closeQuietly(client); // the node is down: so is the path to it
          continue;
        }
        client.setTcpNoDelay(true);
        node.setTcpNoDelay(true);
        open.add(client);
        open.add(node);
        pump(client, node);
        pump(node, client);
      } catch (IOException e) {
        if (!closed) {
          System.err.println("[proxy] accept failed: " + e);
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                  out.write(buffer, 0, n);
                }
              } catch (IOException e) {
                // Cut, or one side went away: close both below.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "proxy-pump-" + target);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Closing a socket that failed: nothing left to do.
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    cut();
  }
}
