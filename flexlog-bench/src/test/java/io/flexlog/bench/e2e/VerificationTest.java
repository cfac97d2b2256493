package io.flexlog.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.bench.report.LoadPhases;
import io.flexlog.client.LogRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VerificationTest {
  private static final long RUN = 42;
  private static final int COLOR = 3;

  private final long[] clock = {0};
  private List<Producer> producers;
  private Subscriber subscriber;

  @BeforeEach
  void setUp() {
    LoadPhases control = new LoadPhases(() -> clock[0]);
    producers = List.of(producer(0, control), producer(1, control));
    subscriber = new Subscriber(RUN, COLOR, () -> clock[0]);
    deliver(marker(E2ePayloadDescriptor.KIND_START), 10);
  }

  private Producer producer(int index, LoadPhases control) {
    return new Producer(
        index,
        p -> new CompletableFuture<>(),
        control,
        new Recorder(3),
        () -> clock[0],
        64,
        COLOR,
        RUN,
        0);
  }

  private static byte[] marker(byte kind) {
    byte[] p = new byte[E2ePayloadDescriptor.HEADER_BYTES];
    E2ePayloadDescriptor.writeFixed(p, kind, COLOR, RUN, -1);
    return p;
  }

  private static byte[] data(int producer, long sequence, boolean measured, long sendNs) {
    byte[] p = new byte[64];
    E2ePayloadDescriptor.writeFixed(p, E2ePayloadDescriptor.KIND_DATA, COLOR, RUN, producer);
    E2ePayloadDescriptor.writeVariable(p, measured, sequence, sendNs);
    return p;
  }

  private void deliver(byte[] payload, long sn) {
    subscriber.onRecord(new LogRecord("c", sn, payload));
  }

  @Test
  void shouldPassWhenEveryAckedRecordArrivesOnceInSnOrder() {
    producers.get(0).acked().ack(0, 11);
    producers.get(1).acked().ack(0, 12);
    producers.get(0).acked().ack(1, 14);
    deliver(data(0, 0, false, 0), 11);
    deliver(data(1, 0, true, 0), 12);
    deliver(data(0, 1, true, 0), 14);

    Verification v = Verification.of(subscriber, producers);

    assertThat(v.passed()).as(v.describe()).isTrue();
    assertThat(v.matched()).isEqualTo(3);
    assertThat(v.describe()).isEqualTo("all 3 acked records exactly once, in SN order");
  }

  @Test
  void shouldFailWhenAnAckedRecordIsMissing() {
    producers.get(0).acked().ack(0, 11);
    producers.get(0).acked().ack(1, 12);
    deliver(data(0, 1, true, 0), 12);

    Verification v = Verification.of(subscriber, producers);

    assertThat(v.passed()).isFalse();
    assertThat(v.describe()).contains("1 of 2 acked records missing");
  }

  @Test
  void shouldFailWhenAnAppendArrivesTwice() {
    producers.get(0).acked().ack(0, 11);
    deliver(data(0, 0, true, 0), 11);
    deliver(data(0, 0, true, 0), 13);

    Verification v = Verification.of(subscriber, producers);

    assertThat(v.passed()).isFalse();
    assertThat(v.describe()).contains("1 records at another SN than acked");
  }

  @Test
  void shouldFailWhenSnsGoBackwards() {
    producers.get(0).acked().ack(0, 15);
    producers.get(0).acked().ack(1, 12);
    deliver(data(0, 0, true, 0), 15);
    deliver(data(0, 1, true, 0), 12);

    Verification v = Verification.of(subscriber, producers);

    assertThat(v.passed()).isFalse();
    assertThat(v.describe()).contains("1 records out of SN order");
  }

  @Test
  void shouldAcceptRecordsOfFailedAppendsButCountThem() {
    producers.get(0).acked().ack(1, 12);
    deliver(data(0, 0, true, 0), 11); // its append failed on the client: outcome unknown
    deliver(data(0, 1, true, 0), 12);

    Verification v = Verification.of(subscriber, producers);

    assertThat(v.passed()).isTrue();
    assertThat(v.unacked()).isEqualTo(1);
  }

  @Test
  void shouldIgnoreOtherRunsAndMeasureOnlyMeasuredDeliveries() {
    producers.get(0).acked().ack(0, 11);
    producers.get(0).acked().ack(1, 13);
    byte[] foreign = data(0, 0, true, 0);
    E2ePayloadDescriptor.writeFixed(foreign, E2ePayloadDescriptor.KIND_DATA, COLOR, RUN + 1, 0);
    clock[0] = 5_000_000;
    deliver(data(0, 0, false, 1_000_000), 11);
    deliver(foreign, 12);
    deliver(data(0, 1, true, 2_000_000), 13);
    deliver(marker(E2ePayloadDescriptor.KIND_END), 14);

    Verification v = Verification.of(subscriber, producers);

    assertThat(v.passed()).isTrue();
    assertThat(subscriber.foreignRecords()).isEqualTo(1);
    assertThat(subscriber.measuredDeliveries()).isEqualTo(1);
    assertThat(subscriber.deliveryLatencyUs().getMaxValue()).isBetween(2999L, 3001L);
  }
}
