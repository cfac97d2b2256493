package io.flexlog.sim;

import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Asks every replica node directly, with READ frames, for every record it ever acknowledged: a
 * replica must still hold each one at the same SN, whatever crashes it went through. Runs once the
 * healed cluster is quiet.
 */
final class SimAuditor implements SimLink.Endpoint {
  private final SimWorld world;
  private final Map<Long, SimHistory.ColorSn> asked = new HashMap<>();
  private final Map<Long, String> expected = new HashMap<>();
  private int answered;
  private int replicaId;
  long checked;

  SimAuditor(SimWorld world) {
    this.world = world;
  }

  void auditAll() {
    for (Map.Entry<Integer, Map<SimHistory.ColorSn, String>> e :
        world.history.ackedByReplica.entrySet()) {
      audit(e.getKey(), e.getValue());
    }
  }

  private void audit(int replica, Map<SimHistory.ColorSn, String> records) {
    replicaId = replica;
    asked.clear();
    expected.clear();
    answered = 0;
    SimLink.End end = world.connectClient(this, replica);
    if (end == null) {
      world.fail("replica " + replica + " is down after healing");
    }
    long requestId = 1;
    List<SimHistory.ColorSn> order = new ArrayList<>(records.keySet());
    order.sort(
        (a, b) ->
            a.colorId() != b.colorId() ? a.colorId() - b.colorId() : Long.compare(a.sn(), b.sn()));
    for (SimHistory.ColorSn at : order) {
      asked.put(requestId, at);
      expected.put(requestId, records.get(at));
      end.write(ReadDescriptor.encode(end.alloc(), requestId, at.colorId(), at.sn()));
      requestId++;
    }
    end.flush();
    for (int round = 0; answered < asked.size(); round++) {
      boolean moved = world.network.deliverAll(() -> {});
      moved |= world.runAllTurns();
      if (!moved && world.clock.fireNext() < 0 || round > 10_000) {
        world.fail(
            "replica " + replica + " answered " + answered + " of " + asked.size() + " reads");
      }
    }
    world.network.drop(end.link(), "auditor done with replica " + replica);
    checked += asked.size();
  }

  @Override
  public void onFrame(SimLink.End end, ByteBuf frame) {
    if (FrameDescriptor.type(frame) != MessageType.READ_RESPONSE) {
      world.fail("replica " + replicaId + " answered a READ with " + SimLink.describe(frame));
    }
    long requestId = FrameDescriptor.requestId(frame);
    SimHistory.ColorSn at = asked.get(requestId);
    byte status = ReadResponseDescriptor.status(frame);
    if (status == ReadResponseDescriptor.TRIMMED
        && (at.sn() <= world.history.trimAsked.getOrDefault(at.colorId(), 0L)
            || world.retention.mayHaveTrimmed(at.colorId(), at.sn()))) {
      answered++; // a trim a client asked for took it (the group log is trimmed), or retention
      return;
    }
    if (status != ReadResponseDescriptor.FOUND) {
      world.fail(
          Invariant.ACKS_DURABLE,
          "replica "
              + replicaId
              + " lost a record it acknowledged: "
              + at
              + " ("
              + expected.get(requestId)
              + ") is answered with status "
              + status);
      answered++;
      return;
    }
    String payload = ReadResponseDescriptor.payload(frame).toString(StandardCharsets.UTF_8);
    if (!payload.equals(expected.get(requestId))) {
      world.fail(
          "replica "
              + replicaId
              + " holds "
              + payload
              + " at "
              + at
              + ", acknowledged "
              + expected.get(requestId));
    }
    answered++;
  }

  @Override
  public void onClosed(SimLink.End end) {}

  @Override
  public boolean alive() {
    return true;
  }

  @Override
  public String name() {
    return "auditor";
  }
}
