package io.flexlog.bench.e2e;

import io.flexlog.bench.load.Errors;
import io.flexlog.bench.report.LoadPhases;
import io.flexlog.bench.report.ProgressReporter;
import io.flexlog.client.FlexLog;
import io.flexlog.client.Subscription;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Measures one color: appends a start marker, subscribes every subscriber from its SN and waits
 * until each has it, runs the producers through warm-up and measurement, waits for their last acks,
 * appends an end marker, waits until every subscriber has it (so, by SN order, every acked record
 * before it), closes the subscriptions and checks each subscriber.
 *
 * <p>Threading: {@link #run} is called by the benchmark's controlling thread; see {@link Producer}
 * and {@link Subscriber} for theirs.
 */
final class ColorRun {
  /** Subscriptions reaching the start marker, and the markers' own appends. */
  static final Duration MARKER_TIMEOUT = Duration.ofSeconds(30);

  /** Progress lines of a long run. */
  static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(1);

  private final E2eSettings settings;
  private final List<FlexLog> producerLogs;
  private final List<FlexLog> subscriberLogs;
  private final Duration drainTimeout;
  private final long runId;
  private final PrintWriter progress;

  ColorRun(
      E2eSettings settings,
      List<FlexLog> producerLogs,
      List<FlexLog> subscriberLogs,
      Duration drainTimeout,
      long runId,
      PrintWriter progress) {
    this.settings = settings;
    this.producerLogs = producerLogs;
    this.subscriberLogs = subscriberLogs;
    this.drainTimeout = drainTimeout;
    this.runId = runId;
    this.progress = progress;
  }

  ColorResult run(String color, int colorIndex, String role) throws InterruptedException {
    say(color + " (" + role + "): subscribing " + subscriberLogs.size() + " subscribers");
    long startSn;
    try {
      startSn = appendMarker(color, colorIndex, E2ePayloadDescriptor.KIND_START);
    } catch (RuntimeException e) {
      return ColorResult.failed(color, role, "start marker: " + Errors.describe(e));
    }
    List<Subscriber> subscribers = new ArrayList<>();
    List<Subscription> subscriptions = new ArrayList<>();
    try {
      for (FlexLog log : subscriberLogs) {
        Subscriber subscriber = new Subscriber(runId, colorIndex, System::nanoTime);
        subscriptions.add(log.subscribe(color, startSn, subscriber));
        subscribers.add(subscriber);
      }
      for (Subscriber subscriber : subscribers) {
        if (!subscriber.awaitStart(MARKER_TIMEOUT)) {
          return ColorResult.failed(
              color, role, "a subscriber did not get the start marker in " + MARKER_TIMEOUT);
        }
      }
      return measure(color, colorIndex, role, subscribers);
    } catch (RuntimeException e) {
      return ColorResult.failed(color, role, Errors.describe(e));
    } finally {
      for (Subscription subscription : subscriptions) {
        subscription.close();
      }
    }
  }

  private ColorResult measure(String color, int colorIndex, String role, List<Subscriber> subs)
      throws InterruptedException {
    LoadPhases control = new LoadPhases(System::nanoTime);
    Recorder appendLatencyUs = new Recorder(3);
    List<Producer> producers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < producerLogs.size(); i++) {
      FlexLog log = producerLogs.get(i);
      Producer producer =
          new Producer(
              i,
              payload -> log.appendAsync(color, payload),
              control,
              appendLatencyUs,
              System::nanoTime,
              settings.recordBytes(),
              colorIndex,
              runId,
              settings.ratePerProducer());
      producers.add(producer);
      Thread thread = new Thread(producer, "flexlog-bench-e2e-producer-" + i);
      thread.setDaemon(true);
      threads.add(thread);
    }
    say(
        color
            + ": "
            + producers.size()
            + " producers, "
            + settings.loadDescription()
            + "; warm-up "
            + seconds(settings.warmup())
            + ", then measuring "
            + seconds(settings.duration()));
    try (ProgressReporter reporter =
        ProgressReporter.start(control, "appends", progress, PROGRESS_INTERVAL)) {
      if (settings.warmup().isZero()) {
        control.beginMeasurement();
      }
      threads.forEach(Thread::start);
      if (!settings.warmup().isZero()) {
        Thread.sleep(settings.warmup().toMillis());
        control.beginMeasurement();
      }
      Thread.sleep(settings.duration().toMillis());
      control.stopIssuing();
      for (Thread thread : threads) {
        thread.join();
      }
      Optional<String> drainFailure = awaitDrained(producers);
      if (drainFailure.isPresent()) {
        return ColorResult.failed(color, role, drainFailure.get());
      }
    }
    try {
      appendMarker(color, colorIndex, E2ePayloadDescriptor.KIND_END);
    } catch (RuntimeException e) {
      return ColorResult.failed(color, role, "end marker: " + Errors.describe(e));
    }
    for (Subscriber subscriber : subs) {
      if (!subscriber.awaitEnd(MARKER_TIMEOUT)) {
        return ColorResult.failed(
            color,
            role,
            "a subscriber did not get the end marker "
                + MARKER_TIMEOUT
                + " after the last ack (records missing or stuck)");
      }
    }
    return result(color, role, control, appendLatencyUs.getIntervalHistogram(), producers, subs);
  }

  private ColorResult result(
      String color,
      String role,
      LoadPhases control,
      Histogram appendLatencyUs,
      List<Producer> producers,
      List<Subscriber> subscribers) {
    long start = control.measureStartNs();
    long acks = 0;
    long errors = 0;
    long lastAck = Long.MIN_VALUE;
    Optional<String> firstError = Optional.empty();
    for (Producer p : producers) {
      acks += p.measuredAcks();
      errors += p.errors();
      lastAck = Math.max(lastAck, p.lastMeasuredAckNs());
      if (firstError.isEmpty()) {
        firstError = Optional.ofNullable(p.firstError());
      }
    }
    Histogram delivery = new Histogram(3);
    double deliveredPerSec = 0;
    List<Verification> verifications = new ArrayList<>();
    for (Subscriber s : subscribers) {
      delivery.add(s.deliveryLatencyUs());
      deliveredPerSec += perSec(s.measuredDeliveries(), start, s.lastMeasuredDeliveryNs());
      verifications.add(Verification.of(s, producers));
    }
    return new ColorResult(
        color,
        role,
        acks,
        errors,
        firstError,
        perSec(acks, start, lastAck),
        deliveredPerSec / subscribers.size(),
        appendLatencyUs,
        delivery,
        verifications,
        Optional.empty());
  }

  private static double perSec(long count, long startNs, long endNs) {
    return count == 0 || endNs <= startNs ? 0 : count / ((endNs - startNs) / 1e9);
  }

  private Optional<String> awaitDrained(List<Producer> producers) throws InterruptedException {
    long deadline = System.nanoTime() + drainTimeout.toNanos();
    while (true) {
      int outstanding = producers.stream().mapToInt(Producer::outstanding).sum();
      if (outstanding == 0) {
        return Optional.empty();
      }
      if (System.nanoTime() > deadline) {
        return Optional.of(
            outstanding
                + " appends still outstanding "
                + seconds(drainTimeout)
                + " after the stop");
      }
      Thread.sleep(5);
    }
  }

  private long appendMarker(String color, int colorIndex, byte kind) {
    byte[] marker = new byte[E2ePayloadDescriptor.HEADER_BYTES];
    E2ePayloadDescriptor.writeFixed(marker, kind, colorIndex, runId, -1);
    E2ePayloadDescriptor.writeVariable(marker, false, 0, System.nanoTime());
    return producerLogs.get(0).append(color, marker);
  }

  private void say(String line) {
    progress.println("[bench] " + line);
    progress.flush();
  }

  static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
