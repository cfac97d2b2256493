package io.flexlog.server.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A node's meters, exposed for Prometheus at {@code http://127.0.0.1:PORT/metrics} when a port is
 * given; with port 0 the meters are still kept (benchmarks read them) but not served.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final HttpServer server;

  public MetricsEndpoint(String host, int port) throws IOException {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    if (port == 0) {
      server = null;
      return;
    }
    server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The bound port, or 0 when not served. */
  public int port() {
    return server == null ? 0 : server.getAddress().getPort();
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
    }
    gc.close();
    registry.close();
  }
}
