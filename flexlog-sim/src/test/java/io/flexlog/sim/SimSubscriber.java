package io.flexlog.sim;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.core.model.Sn;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One pull subscription of a simulated client, from SN 0: what it delivered, in order. Delivery
 * must be strictly increasing in SN (so no repeats).
 */
final class SimSubscriber {
  final String color;
  final int colorId;
  private final String name;
  private final RecordStream stream;
  private long[] sns = new long[64];
  private final List<String> payloads = new ArrayList<>();

  SimSubscriber(String name, String color, int colorId, RecordStream stream) {
    this.name = name;
    this.color = color;
    this.colorId = colorId;
    this.stream = stream;
  }

  /**
   * Takes every record released so far.
   *
   * @return how many
   */
  int drain(SimWorld world) {
    int taken = 0;
    LogRecord record;
    while ((record = stream.poll(Duration.ZERO)) != null) {
      long sn = record.sn();
      if (size() > 0 && sn <= lastSn()) {
        world.fail(this + " delivered SN " + Sn.describe(sn) + " after " + Sn.describe(lastSn()));
      }
      if (payloads.size() == sns.length) {
        sns = java.util.Arrays.copyOf(sns, sns.length * 2);
      }
      String payload = new String(record.payload(), StandardCharsets.UTF_8);
      sns[payloads.size()] = sn;
      payloads.add(payload);
      world.history.observe(new SimHistory.ColorSn(colorId, sn), payload, toString());
      taken++;
    }
    return taken;
  }

  int size() {
    return payloads.size();
  }

  long sn(int i) {
    return sns[i];
  }

  String payload(int i) {
    return payloads.get(i);
  }

  long lastSn() {
    return payloads.isEmpty() ? -1 : sns[payloads.size() - 1];
  }

  boolean delivered(long sn) {
    return java.util.Arrays.binarySearch(sns, 0, payloads.size(), sn) >= 0;
  }

  @Override
  public String toString() {
    return name;
  }
}
