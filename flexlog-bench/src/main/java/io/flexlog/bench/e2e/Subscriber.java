package io.flexlog.bench.e2e;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordHandler;
import io.flexlog.core.error.FlexLogException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * One subscriber of one color in {@code bench e2e}: measures the delivery latency of every record
 * of this run (receipt time minus the producer's send time in the payload, same JVM so the clocks
 * agree) and keeps the SN and identity (producer, sequence number) of every data record it got, in
 * arrival order, so that {@link Verification} can check it against the acknowledged appends.
 *
 * <p>The subscription starts at the run's start marker and the subscriber is {@link #awaitStart
 * started} when that marker arrives; it is {@link #awaitEnd done} when the end marker, appended
 * after every producer drained, arrives: SN order then guarantees that every acknowledged record
 * came before it.
 *
 * <p>Threading: {@link #onRecord} and {@link #onError} run on the subscription's own thread, which
 * alone writes the fields; the controlling thread reads them only after {@link #awaitEnd} returned
 * (the latch orders the accesses).
 */
final class Subscriber implements RecordHandler {
  private static final int SIGNIFICANT_DIGITS = 3;
  private static final int PRODUCER_SHIFT = 48;
  private static final long SEQUENCE_MASK = (1L << PRODUCER_SHIFT) - 1;

  private final long runId;
  private final int colorIndex;
  private final LongSupplier nanoClock;
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch ended = new CountDownLatch(1);
  private final Histogram deliveryLatencyUs = new Histogram(SIGNIFICANT_DIGITS);

  private long[] sns = new long[4096];
  private long[] identities = new long[4096];
  private int received;
  private long lastSn = Long.MIN_VALUE;
  private long orderViolations;
  private long foreign;
  private long measuredDeliveries;
  private long lastMeasuredDeliveryNs = Long.MIN_VALUE;
  private boolean seenStart;
  private volatile FlexLogException error;

  Subscriber(long runId, int colorIndex, LongSupplier nanoClock) {
    this.runId = runId;
    this.colorIndex = colorIndex;
    this.nanoClock = nanoClock;
  }

  @Override
  public void onRecord(LogRecord record) {
    long now = nanoClock.getAsLong();
    byte[] p = record.payload();
    if (!E2ePayloadDescriptor.belongsTo(p, runId, colorIndex)) {
      foreign++;
      return;
    }
    long sn = record.sn();
    if (sn <= lastSn) {
      orderViolations++;
    }
    lastSn = Math.max(lastSn, sn);
    switch (E2ePayloadDescriptor.kind(p)) {
      case E2ePayloadDescriptor.KIND_START -> {
        seenStart = true;
        started.countDown();
      }
      case E2ePayloadDescriptor.KIND_END -> ended.countDown();
      default -> onData(p, sn, now);
    }
  }

  private void onData(byte[] p, long sn, long now) {
    if (!seenStart) {
      orderViolations++; // the subscription starts at the start marker: nothing comes before it
    }
    if (received == sns.length) {
      sns = Arrays.copyOf(sns, received * 2);
      identities = Arrays.copyOf(identities, received * 2);
    }
    sns[received] = sn;
    identities[received] =
        ((long) E2ePayloadDescriptor.producer(p) << PRODUCER_SHIFT)
            | (E2ePayloadDescriptor.sequence(p) & SEQUENCE_MASK);
    received++;
    if (E2ePayloadDescriptor.measured(p)) {
      long latencyNs = Math.max(0, now - E2ePayloadDescriptor.sendNanos(p));
      deliveryLatencyUs.recordValue(TimeUnit.NANOSECONDS.toMicros(latencyNs));
      measuredDeliveries++;
      lastMeasuredDeliveryNs = now;
    }
  }

  @Override
  public void onError(FlexLogException e) {
    error = e;
    started.countDown();
    ended.countDown();
  }

  /** Whether the start marker (or an error) arrived within the timeout. */
  boolean awaitStart(Duration timeout) throws InterruptedException {
    return started.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Whether the end marker (or an error) arrived within the timeout. */
  boolean awaitEnd(Duration timeout) throws InterruptedException {
    return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The subscription's error, or null. */
  FlexLogException error() {
    return error;
  }

  /** Data records received; the accessors below are valid after {@link #awaitEnd} returned true. */
  int received() {
    return received;
  }

  long snAt(int i) {
    return sns[i];
  }

  int producerAt(int i) {
    return (int) (identities[i] >>> PRODUCER_SHIFT);
  }

  long sequenceAt(int i) {
    return identities[i] & SEQUENCE_MASK;
  }

  long orderViolations() {
    return orderViolations;
  }

  long foreignRecords() {
    return foreign;
  }

  long measuredDeliveries() {
    return measuredDeliveries;
  }

  /** {@link Long#MIN_VALUE} when no measured record arrived. */
  long lastMeasuredDeliveryNs() {
    return lastMeasuredDeliveryNs;
  }

  Histogram deliveryLatencyUs() {
    return deliveryLatencyUs;
  }
}
