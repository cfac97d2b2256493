package io.flexlog.sim;

import io.flexlog.client.LogRecord;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The clients' appends and reads: issued at random, collected when they complete, and handed to the
 * {@link SimHistory}. Failed operations are legal (a timeout, a lost connection) and are only
 * counted; what completes must be right.
 */
final class SimOperations {
  private record Op(
      boolean append,
      List<String> members,
      int colorId,
      long sn,
      String payload,
      boolean ackedAtStart,
      long startMs,
      CompletableFuture<?> future) {}

  private final SimWorld world;
  private final List<Op> inFlight = new ArrayList<>();
  private final Map<String, Integer> failures = new TreeMap<>();
  private long appendCount;
  private long groupCount;
  long groupsAcked;

  /** Every group's members, for the all-or-nothing check at the end. */
  final List<List<String>> groups = new ArrayList<>();

  long acked;
  private long readCount;
  private long readsDone;

  SimOperations(SimWorld world) {
    this.world = world;
  }

  void append() {
    SimClient client = world.clients.get(world.random.nextInt(world.clients.size()));
    List<Color> colors = world.topology.colors();
    append(client, colors.get(world.random.nextInt(colors.size())));
  }

  /** An append to {@code color} by a client picked at random. */
  void append(Color color) {
    append(world.clients.get(world.random.nextInt(world.clients.size())), color);
  }

  private void append(SimClient client, Color color) {
    String payload = "s" + world.seed + "-" + (++appendCount);
    world.trace.note(client + " appends " + payload + " to " + color.name());
    CompletableFuture<Long> future =
        client.append(color.name(), payload.getBytes(StandardCharsets.UTF_8));
    inFlight.add(
        new Op(true, null, color.id(), Sn.NONE, payload, false, world.clock.nowMs(), future));
  }

  /** One APPEND_BATCH of two to four records: each is checked like a single append. */
  void appendBatch() {
    SimClient client = world.clients.get(world.random.nextInt(world.clients.size()));
    List<Color> colors = world.topology.colors();
    Color color = colors.get(world.random.nextInt(colors.size()));
    int size = 2 + world.random.nextInt(3);
    List<byte[]> payloads = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String payload = "s" + world.seed + "-" + (++appendCount);
      names.add(payload);
      payloads.add(payload.getBytes(StandardCharsets.UTF_8));
    }
    List<CompletableFuture<Long>> futures =
        client.appendBatch(color.name(), payloads, world.random.nextInt(4));
    world.trace.note(client + " appends batch " + names + " to " + color.name());
    for (int i = 0; i < futures.size(); i++) {
      inFlight.add(
          new Op(
              true,
              null,
              color.id(),
              Sn.NONE,
              names.get(i),
              false,
              world.clock.nowMs(),
              futures.get(i)));
    }
  }

  /** An atomic group of two or three members over one or two colors. */
  void appendGroup() {
    SimClient client = world.clients.get(world.random.nextInt(world.clients.size()));
    List<Color> colors = world.topology.colors();
    Map<String, List<byte[]>> records = new java.util.LinkedHashMap<>();
    List<String> members = new ArrayList<>();
    long group = ++groupCount;
    int size = 2 + world.random.nextInt(2);
    for (int i = 0; i < size; i++) {
      Color color = colors.get(world.random.nextInt(colors.size()));
      String payload = "s" + world.seed + "-g" + group + "-" + i + "-" + color.name();
      records
          .computeIfAbsent(color.name(), k -> new ArrayList<>())
          .add(payload.getBytes(StandardCharsets.UTF_8));
      members.add(payload);
    }
    world.trace.note(client + " appends group " + members);
    inFlight.add(
        new Op(
            true,
            members,
            -1,
            Sn.NONE,
            null,
            false,
            world.clock.nowMs(),
            client.appendAtomically(records)));
  }

  /** Reads an acknowledged record, or now and then an SN nobody was told about. */
  void read() {
    List<SimHistory.Acked> known = new ArrayList<>(world.history.acked.values());
    if (known.isEmpty()) {
      return;
    }
    known.sort(
        (a, b) ->
            a.colorId() != b.colorId() ? a.colorId() - b.colorId() : Long.compare(a.sn(), b.sn()));
    SimHistory.Acked target = known.get(world.random.nextInt(known.size()));
    long sn = world.random.nextInt(4) == 0 ? target.sn() + 1 : target.sn();
    SimClient client = world.clients.get(world.random.nextInt(world.clients.size()));
    String color = world.topology.color(target.colorId()).orElseThrow().name();
    boolean ackedAtStart =
        world.history.acked.containsKey(new SimHistory.ColorSn(target.colorId(), sn));
    world.trace.note(client + " reads " + color + " " + Sn.describe(sn));
    readCount++;
    inFlight.add(
        new Op(
            false,
            null,
            target.colorId(),
            sn,
            null,
            ackedAtStart,
            world.clock.nowMs(),
            client.read(color, sn)));
  }

  /** Hands every completed operation to the history. */
  void collect() {
    for (Iterator<Op> it = inFlight.iterator(); it.hasNext(); ) {
      Op op = it.next();
      if (!op.future.isDone()) {
        continue;
      }
      it.remove();
      Object result;
      try {
        result = op.future.join();
      } catch (CompletionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (!op.append && cause instanceof TrimmedException) {
          checkTrimmedRead(op);
        }
        failures.merge(
            (op.append ? "append " : "read ") + cause.getClass().getSimpleName(), 1, Integer::sum);
        world.trace.note((op.append ? "append " + op.payload : "read") + " failed: " + cause);
        continue;
      }
      if (op.members != null) {
        groups.add(op.members);
        @SuppressWarnings("unchecked")
        Map<String, long[]> sns = (Map<String, long[]>) result;
        groupsAcked++;
        world.trace.note("group " + op.members + " acknowledged");
        Map<String, Integer> next = new TreeMap<>();
        for (String member : op.members) {
          String color = member.substring(member.lastIndexOf('-') + 1);
          int index = next.merge(color, 1, Integer::sum) - 1;
          int colorId = world.topology.color(color).orElseThrow().id();
          world.history.onAcked(colorId, sns.get(color)[index], member, op.startMs);
        }
      } else if (op.append) {
        long sn = (Long) result;
        acked++;
        world.trace.note("append " + op.payload + " acknowledged at " + Sn.describe(sn));
        world.history.onAcked(op.colorId, sn, op.payload, op.startMs);
      } else {
        readsDone++;
        @SuppressWarnings("unchecked")
        Optional<LogRecord> record = (Optional<LogRecord>) result;
        String payload =
            record.map(r -> new String(r.payload(), StandardCharsets.UTF_8)).orElse(null);
        if (payload == null && op.ackedAtStart) {
          world.fail(
              Invariant.READS_SEE_ACKED,
              "a read of color "
                  + op.colorId
                  + " SN "
                  + Sn.describe(op.sn)
                  + " found a hole where a record was acknowledged before the read began");
        }
        world.history.onRead(op.colorId, op.sn, payload);
      }
    }
  }

  /**
   * A read failed as TRIMMED: legal only below a trim a client asked for or, for a record appended
   * long enough ago, where retention trimmed.
   */
  private void checkTrimmedRead(Op op) {
    boolean asked = op.sn <= world.history.trimAsked.getOrDefault(op.colorId, 0L);
    if (!asked && op.ackedAtStart && !world.retention.mayHaveTrimmed(op.colorId, op.sn)) {
      world.fail(
          Invariant.RETENTION_SPARES_RECENT,
          "a read of color "
              + op.colorId
              + " SN "
              + Sn.describe(op.sn)
              + " was answered TRIMMED, but no trim was asked there and retention ("
              + world.retention.describe()
              + ") may not have taken it yet");
    }
  }

  /** Once healed: each group's members were all stored or none was. */
  void checkGroups() {
    for (List<String> members : groups) {
      long stored = members.stream().filter(world.history.stored::contains).count();
      if (stored != 0 && stored != members.size()) {
        world.fail(
            Invariant.ATOMIC_ALL_OR_NOTHING,
            "group " + members + ": only " + stored + " of " + members.size() + " members stored");
      }
    }
  }

  boolean settled() {
    return inFlight.isEmpty();
  }

  int inFlightCount() {
    return inFlight.size();
  }

  String summary() {
    return appendCount
        + " appends ("
        + acked
        + " acknowledged), "
        + groupCount
        + " atomic groups ("
        + groupsAcked
        + " acknowledged), "
        + readCount
        + " reads ("
        + readsDone
        + " answered), failures "
        + failures;
  }
}
