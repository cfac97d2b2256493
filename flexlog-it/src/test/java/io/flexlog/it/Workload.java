package io.flexlog.it;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Closed-loop appenders: each client has its own {@link FlexLog} connection and thread and appends
 * one record at a time with the synchronous {@code append}, recording every acknowledged (sn,
 * payload). Payloads are unique and self-describing: client id and counter, then random bytes;
 * sizes run from 1 B to 4 KiB (records under 12 bytes are random bytes only).
 */
final class Workload implements AutoCloseable {
  static final int HEADER_BYTES = Integer.BYTES + Long.BYTES;
  static final int MAX_PAYLOAD_BYTES = 4096;

  /** One acknowledged append, with when it started and ended ({@link System#nanoTime}). */
  record Acked(int client, long counter, long sn, byte[] payload, long startNanos, long endNanos) {}

  private final String bootstrap;
  private final String color;
  private final long seed;
  private final Duration deliveryTimeout;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicInteger acked = new AtomicInteger();
  private final List<List<Acked>> perClient = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final List<FlexLog> connections = new CopyOnWriteArrayList<>();

  Workload(String bootstrap, String color, long seed, Duration deliveryTimeout) {
    this.bootstrap = bootstrap;
    this.color = color;
    this.seed = seed;
    this.deliveryTimeout = deliveryTimeout;
  }

  /** Starts {@code clients} appenders, numbered after those already started. */
  Workload start(int clients) {
    for (int i = 0; i < clients; i++) {
      int client = perClient.size();
      List<Acked> acks = new CopyOnWriteArrayList<>();
      perClient.add(acks);
      Thread thread = new Thread(() -> run(client, acks), "appender-" + client);
      threads.add(thread);
      thread.start();
    }
    return this;
  }

  private void run(int client, List<Acked> acks) {
    Random random = new Random(seed * 1_000_003 + client);
    FlexLogConfig config =
        FlexLogConfig.builder()
            .bootstrapServers(bootstrap)
            .requestTimeout(Duration.ofSeconds(1))
            .deliveryTimeout(deliveryTimeout)
            .readTimeout(Duration.ofSeconds(5))
            .build();
    try (FlexLog log = FlexLog.connect(config)) {
      connections.add(log);
      for (long counter = 0; !stopping.get(); counter++) {
        byte[] payload = payload(random, client, counter);
        long start = System.nanoTime();
        long sn = log.append(color, payload);
        acks.add(new Acked(client, counter, sn, payload, start, System.nanoTime()));
        acked.incrementAndGet();
      }
    } catch (Throwable t) {
      failures.add(new AssertionError("appender " + client + " failed", t));
    }
  }

  static byte[] payload(Random random, int client, long counter) {
    int size =
        random.nextInt(16) == 0
            ? 1 + random.nextInt(HEADER_BYTES - 1)
            : HEADER_BYTES + random.nextInt(MAX_PAYLOAD_BYTES - HEADER_BYTES + 1);
    byte[] payload = new byte[size];
    random.nextBytes(payload);
    if (size >= HEADER_BYTES) {
      ByteBuffer.wrap(payload).putInt(client).putLong(counter);
    }
    return payload;
  }

  int ackedCount() {
    return acked.get();
  }

  /** The fewest acknowledged appends of any client so far. */
  int minAckedPerClient() {
    return perClient.stream().mapToInt(List::size).min().orElse(0);
  }

  boolean hasFailures() {
    return !failures.isEmpty();
  }

  /**
   * Lets every in-flight append finish, stops the clients and returns every acknowledged append,
   * per client in the order acknowledged.
   *
   * @throws AssertionError if an append failed (it carries the failures)
   */
  List<List<Acked>> stop(Duration timeout) throws InterruptedException {
    stopping.set(true);
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> stuck = new ArrayList<>();
    for (Thread thread : threads) {
      thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      if (thread.isAlive()) {
        stuck.add(thread.getName());
      }
    }
    if (!stuck.isEmpty()) {
      failures.add(new AssertionError(stuck + " still appending after " + timeout));
    }
    if (!failures.isEmpty()) {
      AssertionError error =
          new AssertionError(failures.size() + " appender failure(s): " + describe(failures));
      failures.forEach(error::addSuppressed);
      throw error;
    }
    List<List<Acked>> result = new ArrayList<>();
    for (List<Acked> acks : perClient) {
      result.add(List.copyOf(acks));
    }
    return result;
  }

  /** The distinct root causes, so that a failure report names them without its stack traces. */
  private static String describe(Iterable<Throwable> failures) {
    Set<String> causes = new LinkedHashSet<>();
    for (Throwable failure : failures) {
      Throwable root = failure;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      causes.add(root == failure ? failure.getMessage() : root.toString());
    }
    return String.join("; ", causes);
  }

  @Override
  public void close() throws InterruptedException {
    stopping.set(true);
    connections.forEach(FlexLog::close);
    for (Thread thread : threads) {
      thread.join(5_000);
    }
  }
}
