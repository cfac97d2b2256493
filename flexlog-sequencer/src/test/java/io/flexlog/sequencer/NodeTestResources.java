package io.flexlog.sequencer;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the sequencer node tests share: one event loop per test class for their {@link
 * RawFrameClient}s, and the nodes and clients a test opens, closed after it in reverse order.
 * Register it in a static field with {@code @RegisterExtension}.
 */
final class NodeTestResources implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
  private EventLoopGroup clientGroup;
  private final List<AutoCloseable> opened = new ArrayList<>();

  @Override
  public void beforeAll(ExtensionContext context) {
    clientGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      for (int i = opened.size() - 1; i >= 0; i--) {
        opened.get(i).close();
      }
    } finally {
      opened.clear();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Closes {@code resource} after the test (before anything added earlier). */
  <T extends AutoCloseable> T add(T resource) {
    opened.add(resource);
    return resource;
  }

  /** A raw client connected to {@code port}, closed after the test. */
  RawFrameClient connect(int port) throws InterruptedException {
    return add(new RawFrameClient(clientGroup, port));
  }
}
