package io.flexlog.it.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe recording of what concurrent clients did to a FlexLog cluster and what they saw:
 * appends (single and atomic multi-color), reads and subscriptions. {@link HistoryChecker} then
 * checks the recording against the log's guarantees.
 *
 * <p>Every invocation and completion takes a number from one global counter, so "A completed before
 * B began" is decided by comparing numbers, with no clock involved. Payloads must be unique across
 * the whole history (workloads embed a client id and counter): the checker identifies a record by
 * its bytes.
 *
 * <pre>{@code
 * History history = new History();
 * History.Append op = history.appendInvoked("client-1", "left", payload);
 * try {
 *   op.acked(log.append("left", payload));
 * } catch (FlexLogException e) {
 *   op.failed(e); // indeterminate: the record may or may not appear
 * }
 * }</pre>
 */
public final class History {
  private final AtomicLong clock = new AtomicLong();
  private final List<Append> appends = Collections.synchronizedList(new ArrayList<>());
  private final List<AtomicAppend> atomics = Collections.synchronizedList(new ArrayList<>());
  private final List<Read> reads = Collections.synchronizedList(new ArrayList<>());
  private final List<Subscriber> subscribers = Collections.synchronizedList(new ArrayList<>());

  /** Records the start of {@code append(color, payload)}. */
  public Append appendInvoked(String client, String color, byte[] payload) {
    Append op = new Append(client, color, payload.clone(), clock.incrementAndGet(), null);
    appends.add(op);
    return op;
  }

  /**
   * Records the start of an atomic multi-color append; its members are recorded as appends of their
   * own, completed together by {@link AtomicAppend#acked} or {@link AtomicAppend#failed}.
   */
  public AtomicAppend atomicInvoked(String client, Map<String, List<byte[]>> recordsByColor) {
    long invoke = clock.incrementAndGet();
    AtomicAppend atomic = new AtomicAppend(client, new ArrayList<>());
    recordsByColor.forEach(
        (color, payloads) -> {
          for (byte[] payload : payloads) {
            Append member = new Append(client, color, payload.clone(), invoke, atomic);
            atomic.members.add(member);
            appends.add(member);
          }
        });
    atomics.add(atomic);
    return atomic;
  }

  /** Records the start of {@code read(color, sn)}. */
  public Read readInvoked(String client, String color, long sn) {
    Read op = new Read(client, color, sn, clock.incrementAndGet());
    reads.add(op);
    return op;
  }

  /** Registers a subscriber of {@code color} that asked for records from {@code fromSn}. */
  public Subscriber subscriber(String name, String color, long fromSn) {
    Subscriber s = new Subscriber(name, color, fromSn);
    subscribers.add(s);
    return s;
  }

  /** Appends recorded, atomic group members included. */
  public int appendCount() {
    return appends.size();
  }

  public int atomicCount() {
    return atomics.size();
  }

  public int readCount() {
    return reads.size();
  }

  public int subscriberCount() {
    return subscribers.size();
  }

  List<Append> appends() {
    synchronized (appends) {
      return List.copyOf(appends);
    }
  }

  List<AtomicAppend> atomics() {
    synchronized (atomics) {
      return List.copyOf(atomics);
    }
  }

  List<Read> reads() {
    synchronized (reads) {
      return List.copyOf(reads);
    }
  }

  List<Subscriber> subscribers() {
    synchronized (subscribers) {
      return List.copyOf(subscribers);
    }
  }

  /** Outcome of an operation that has not returned, or that failed without a definite answer. */
  enum Outcome {
    PENDING,
    ACKED,
    INDETERMINATE
  }

  /** One append: acked with an SN, or indeterminate (failed or never returned). */
  public final class Append {
    final String client;
    final String color;
    final byte[] payload;
    final long invokedAt;
    final AtomicAppend atomic;
    private volatile Outcome outcome = Outcome.PENDING;
    private volatile long sn;
    private volatile long completedAt = Long.MAX_VALUE;

    private Append(
        String client, String color, byte[] payload, long invokedAt, AtomicAppend atomic) {
      this.client = client;
      this.color = color;
      this.payload = payload;
      this.invokedAt = invokedAt;
      this.atomic = atomic;
    }

    public void acked(long sn) {
      complete(Outcome.ACKED, sn, clock.incrementAndGet());
    }

    /** The append threw: the record may or may not be in the log. */
    public void failed(Throwable cause) {
      complete(Outcome.INDETERMINATE, 0, clock.incrementAndGet());
    }

    private void complete(Outcome outcome, long sn, long at) {
      if (this.outcome != Outcome.PENDING) {
        throw new IllegalStateException("append completed twice: " + this);
      }
      this.sn = sn;
      this.completedAt = at;
      this.outcome = outcome;
    }

    Outcome outcome() {
      return outcome;
    }

    long sn() {
      return sn;
    }

    long completedAt() {
      return completedAt;
    }

    @Override
    public String toString() {
      return "append("
          + client
          + ", "
          + color
          + ", "
          + HistoryChecker.describe(payload)
          + ")"
          + (outcome == Outcome.ACKED ? " -> sn " + sn : " -> " + outcome);
    }
  }

  /** An atomic multi-color append: all of its members appear, or none does. */
  public final class AtomicAppend {
    final String client;
    final List<Append> members;

    private AtomicAppend(String client, List<Append> members) {
      this.client = client;
      this.members = members;
    }

    /** Completes every member; {@code snsByColor} lists each color's SNs in the invoked order. */
    public void acked(Map<String, long[]> snsByColor) {
      long at = clock.incrementAndGet();
      Map<String, Integer> next = new java.util.HashMap<>();
      for (Append member : members) {
        long[] sns = snsByColor.get(member.color);
        int i = next.merge(member.color, 1, Integer::sum) - 1;
        if (sns == null || i >= sns.length) {
          throw new IllegalArgumentException(
              "no SN for member " + i + " of color " + member.color + ": " + snsByColor);
        }
        member.complete(Outcome.ACKED, sns[i], at);
      }
    }

    public void failed(Throwable cause) {
      long at = clock.incrementAndGet();
      for (Append member : members) {
        member.complete(Outcome.INDETERMINATE, 0, at);
      }
    }

    @Override
    public String toString() {
      return "atomic" + members;
    }
  }

  /** One read: a record, a hole, or a failure (ignored by the checker). */
  public final class Read {
    final String client;
    final String color;
    final long sn;
    final long invokedAt;
    private volatile byte[] found;
    private volatile boolean hole;

    private Read(String client, String color, long sn, long invokedAt) {
      this.client = client;
      this.color = color;
      this.sn = sn;
      this.invokedAt = invokedAt;
    }

    public void found(byte[] payload) {
      clock.incrementAndGet();
      found = payload.clone();
    }

    public void hole() {
      clock.incrementAndGet();
      hole = true;
    }

    byte[] foundPayload() {
      return found;
    }

    boolean isHole() {
      return hole;
    }

    @Override
    public String toString() {
      return "read("
          + client
          + ", "
          + color
          + ", "
          + sn
          + ") -> "
          + (hole ? "hole" : found == null ? "failed" : HistoryChecker.describe(found));
    }
  }

  /** What one subscriber received, in delivery order. */
  public static final class Subscriber {
    final String name;
    final String color;
    final long fromSn;
    private long[] sns = new long[1024];
    private final List<byte[]> payloads = new ArrayList<>();
    private volatile boolean complete;

    private Subscriber(String name, String color, long fromSn) {
      this.name = name;
      this.color = color;
      this.fromSn = fromSn;
    }

    /** One delivered record. */
    public synchronized void delivered(long sn, byte[] payload) {
      int i = payloads.size();
      if (i == sns.length) {
        sns = Arrays.copyOf(sns, i * 2);
      }
      sns[i] = sn;
      payloads.add(payload.clone());
    }

    /**
     * Declares that this subscriber ran until the end of the workload: the checker then requires it
     * to have received every acknowledged record of its color from {@code fromSn} on.
     */
    public void complete() {
      complete = true;
    }

    synchronized int count() {
      return payloads.size();
    }

    synchronized long sn(int i) {
      return sns[i];
    }

    synchronized byte[] payload(int i) {
      return payloads.get(i);
    }

    boolean isComplete() {
      return complete;
    }

    synchronized long lastSn() {
      return payloads.isEmpty() ? 0 : sns[payloads.size() - 1];
    }

    @Override
    public String toString() {
      return "subscriber " + name + " of " + color + " from " + fromSn;
    }
  }
}
