package io.flexlog.client.producer.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The producer's connection to the cluster, started in the background when the producer is built,
 * so that building one never blocks and the first {@code send} overlaps its serialization with the
 * topology fetch (docs/architecture.md#cold-start). An unreachable cluster is tried again every
 * {@code retry.backoff.ms} until the producer closes; a send waits for it up to {@code
 * max.block.ms}.
 *
 * <p>Thread-safe. The connecting thread is a daemon thread named {@code flexlog-producer-connect}.
 */
public final class ClusterConnection {
  private final FlexLogConfig config;
  private final Duration retryBackoff;
  private final CompletableFuture<ClientCore> core = new CompletableFuture<>();
  private volatile boolean closed;
  private volatile String lastError = "no answer yet";

  public ClusterConnection(FlexLogConfig config, Duration retryBackoff, String clientId) {
    this.config = config;
    this.retryBackoff = retryBackoff;
    Thread thread =
        new Thread(
            this::connect, "flexlog-producer-connect" + (clientId.isEmpty() ? "" : "-" + clientId));
    thread.setDaemon(true);
    thread.start();
  }

  private void connect() {
    while (!closed) {
      try {
        ClientCore connected = ClientCore.connect(config);
        synchronized (this) {
          if (!closed) {
            core.complete(connected);
            return;
          }
        }
        connected.close();
        return;
      } catch (RuntimeException e) {
        lastError = e.getMessage();
      }
      try {
        Thread.sleep(retryBackoff.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * The connected client, waiting for it until {@code deadlineNs} ({@link System#nanoTime}).
   *
   * @throws FlexLogTimeoutException if no node answered by then, naming the servers and the last
   *     error
   */
  public ClientCore await(long deadlineNs, long maxBlockMs) throws InterruptedException {
    ClientCore now = core.getNow(null);
    if (now != null) {
      return now;
    }
    try {
      return core.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new FlexLogTimeoutException(
          "no FlexLog node at bootstrap.servers="
              + String.join(",", config.bootstrapServers())
              + " gave the topology within max.block.ms="
              + maxBlockMs
              + " (last error: "
              + lastError
              + "); the record was not sent");
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /** The client if connected, else null. */
  public ClientCore connectedOrNull() {
    return core.getNow(null);
  }

  /** Stops connecting and closes the client if there is one. */
  public void close() {
    ClientCore connected;
    synchronized (this) {
      closed = true;
      connected = core.getNow(null);
    }
    if (connected != null) {
      connected.close();
    }
  }
}
