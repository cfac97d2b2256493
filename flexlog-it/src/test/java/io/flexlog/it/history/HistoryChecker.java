package io.flexlog.it.history;

import io.flexlog.it.history.History.Append;
import io.flexlog.it.history.History.AtomicAppend;
import io.flexlog.it.history.History.Outcome;
import io.flexlog.it.history.History.Read;
import io.flexlog.it.history.History.Subscriber;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a {@link History} against FlexLog's guarantees (DESIGN §8) and lists every violation:
 *
 * <ol>
 *   <li>no two acknowledged appends of a color share an SN;
 *   <li>an append that completed before another began, in the same color, has the smaller SN;
 *   <li>a read or a subscription returns only records that were appended to that color, at the SN
 *       they were acknowledged with; a record is never seen at two SNs (exactly once);
 *   <li>a read answers a hole only where no record is ever seen or acknowledged;
 *   <li>a subscription delivers strictly increasing SNs from its start, and every acknowledged
 *       record of its color in the range it covered; a subscriber declared complete covered every
 *       acknowledged record;
 *   <li>all subscribers of a color see the same sequence where their ranges overlap;
 *   <li>atomic multi-color appends are all or nothing.
 * </ol>
 *
 * <p>Failed operations are indeterminate: their records may appear or not, but at most once.
 */
public final class HistoryChecker {
  private static final int MAX_REPORTED = 20;

  private final History history;
  private final List<String> violations = new ArrayList<>();
  private final Map<ByteBuffer, Append> byPayload = new HashMap<>();

  /** Per color, SN -> the append observed or acknowledged there. */
  private final Map<String, TreeMap<Long, Append>> placed = new HashMap<>();

  /** Where each append was seen (acknowledged or observed): its SN. */
  private final Map<Append, Long> seenAt = new HashMap<>();

  private HistoryChecker(History history) {
    this.history = history;
  }

  /** Returns every violation found, empty if the history is valid. */
  public static List<String> check(History history) {
    return new HistoryChecker(history).run();
  }

  /** Throws an {@link AssertionError} listing the violations, if any. */
  public static void assertValid(History history) {
    List<String> violations = check(history);
    if (!violations.isEmpty()) {
      StringBuilder sb = new StringBuilder(violations.size() + " history violation(s):");
      violations.stream().limit(MAX_REPORTED).forEach(v -> sb.append("\n  ").append(v));
      if (violations.size() > MAX_REPORTED) {
        sb.append("\n  ... and ").append(violations.size() - MAX_REPORTED).append(" more");
      }
      throw new AssertionError(sb.toString());
    }
  }

  private List<String> run() {
    List<Append> appends = history.appends();
    indexPayloads(appends);
    placeAcknowledged(appends);
    checkRealTimeOrder(appends);
    for (Read read : history.reads()) {
      checkRead(read);
    }
    List<Subscriber> subscribers = history.subscribers();
    for (Subscriber s : subscribers) {
      checkSubscriber(s);
    }
    checkSubscribersAgree(subscribers);
    checkHoles(history.reads());
    checkAtomics(history.atomics());
    return violations;
  }

  private void indexPayloads(List<Append> appends) {
    for (Append a : appends) {
      Append previous = byPayload.put(ByteBuffer.wrap(a.payload), a);
      if (previous != null) {
        throw new IllegalArgumentException(
            "workload bug: payloads must be unique, " + a + " repeats " + previous);
      }
    }
  }

  private void placeAcknowledged(List<Append> appends) {
    for (Append a : appends) {
      if (a.outcome() != Outcome.ACKED) {
        continue;
      }
      if (a.sn() <= 0) {
        violations.add(a + ": acknowledged with an SN that is not positive");
        continue;
      }
      place(a, a.sn(), "acknowledged");
    }
  }

  /** Records that {@code a} is at {@code sn} in its color; reports any conflict. */
  private void place(Append a, long sn, String how) {
    Long earlier = seenAt.putIfAbsent(a, sn);
    if (earlier != null && earlier != sn) {
      violations.add(a + " " + how + " at sn " + sn + " but also seen at sn " + earlier);
      return;
    }
    Append other = placed.computeIfAbsent(a.color, c -> new TreeMap<>()).putIfAbsent(sn, a);
    if (other != null && other != a) {
      violations.add("two records at " + a.color + " sn " + sn + ": " + other + " and " + a);
    }
  }

  private void checkRealTimeOrder(List<Append> appends) {
    Map<String, List<Append>> byColor = new HashMap<>();
    for (Append a : appends) {
      if (a.outcome() == Outcome.ACKED) {
        byColor.computeIfAbsent(a.color, c -> new ArrayList<>()).add(a);
      }
    }
    for (List<Append> acked : byColor.values()) {
      List<Append> byCompletion = new ArrayList<>(acked);
      byCompletion.sort(Comparator.comparingLong(Append::completedAt));
      List<Append> byInvocation = new ArrayList<>(acked);
      byInvocation.sort(Comparator.comparingLong(a -> a.invokedAt));
      int done = 0;
      Append maxDone = null;
      for (Append b : byInvocation) {
        while (done < byCompletion.size() && byCompletion.get(done).completedAt() < b.invokedAt) {
          Append a = byCompletion.get(done++);
          if (maxDone == null || a.sn() > maxDone.sn()) {
            maxDone = a;
          }
        }
        if (maxDone != null && maxDone.sn() >= b.sn()) {
          violations.add(
              "real-time order: "
                  + maxDone
                  + " completed before "
                  + b
                  + " began, SNs not increasing");
        }
      }
    }
  }

  /** The append that {@code payload} came from, or null after reporting a phantom record. */
  private Append origin(String color, long sn, byte[] payload, Object observer) {
    Append a = byPayload.get(ByteBuffer.wrap(payload));
    if (a == null) {
      violations.add(
          observer + " saw a record never appended at sn " + sn + ": " + describe(payload));
      return null;
    }
    if (!a.color.equals(color)) {
      violations.add(observer + " saw " + a + " at " + color + " sn " + sn + ": wrong color");
      return null;
    }
    if (a.outcome() == Outcome.ACKED && a.sn() != sn) {
      violations.add(observer + " saw " + a + " at sn " + sn);
      return null;
    }
    return a;
  }

  private void checkRead(Read read) {
    byte[] found = read.foundPayload();
    if (found == null) {
      return;
    }
    Append a = origin(read.color, read.sn, found, read);
    if (a != null) {
      place(a, read.sn, "read");
    }
  }

  private void checkHoles(List<Read> reads) {
    for (Read read : reads) {
      if (!read.isHole()) {
        continue;
      }
      TreeMap<Long, Append> there = placed.get(read.color);
      Append a = there == null ? null : there.get(read.sn);
      if (a != null) {
        violations.add(read + " but " + a + " is at that SN");
      }
    }
  }

  private void checkSubscriber(Subscriber s) {
    long previous = Long.MIN_VALUE;
    int n = s.count();
    for (int i = 0; i < n; i++) {
      long sn = s.sn(i);
      if (sn < s.fromSn) {
        violations.add(s + " delivered sn " + sn + " below its start");
      }
      if (sn <= previous) {
        violations.add(s + " delivered sn " + sn + " after sn " + previous);
      }
      previous = sn;
      Append a = origin(s.color, sn, s.payload(i), s);
      if (a != null) {
        place(a, sn, "delivered to " + s.name);
      }
    }
  }

  /** Runs after every observation is placed: coverage and agreement between subscribers. */
  private void checkSubscribersAgree(List<Subscriber> subscribers) {
    for (Subscriber s : subscribers) {
      checkCoverage(s);
    }
    Map<String, List<Subscriber>> byColor = new HashMap<>();
    for (Subscriber s : subscribers) {
      byColor.computeIfAbsent(s.color, c -> new ArrayList<>()).add(s);
    }
    for (List<Subscriber> group : byColor.values()) {
      for (int i = 1; i < group.size(); i++) {
        compare(group.get(0), group.get(i));
      }
    }
  }

  private void checkCoverage(Subscriber s) {
    TreeMap<Long, Append> there = placed.getOrDefault(s.color, new TreeMap<>());
    long last = s.lastSn();
    if (s.isComplete()) {
      Append lastAcked = null;
      for (Append a : there.descendingMap().values()) {
        if (a.outcome() == Outcome.ACKED) {
          lastAcked = a;
          break;
        }
      }
      if (lastAcked != null && lastAcked.sn() >= s.fromSn && last < lastAcked.sn()) {
        violations.add(s + " completed at sn " + last + " but " + lastAcked + " was acknowledged");
      }
    }
    if (s.count() == 0) {
      return;
    }
    int i = 0;
    int n = s.count();
    for (Map.Entry<Long, Append> e : there.subMap(s.fromSn, true, last, true).entrySet()) {
      while (i < n && s.sn(i) < e.getKey()) {
        i++;
      }
      boolean delivered = i < n && s.sn(i) == e.getKey();
      if (!delivered && e.getValue().outcome() == Outcome.ACKED) {
        violations.add(s + " skipped " + e.getValue());
      }
    }
  }

  /** Two subscribers of one color deliver the same records where their ranges overlap. */
  private void compare(Subscriber a, Subscriber b) {
    if (a.count() == 0 || b.count() == 0) {
      return;
    }
    long from = Math.max(a.fromSn, b.fromSn);
    long to = Math.min(a.lastSn(), b.lastSn());
    int i = firstAtOrAfter(a, from);
    int j = firstAtOrAfter(b, from);
    while (true) {
      long x = i < a.count() && a.sn(i) <= to ? a.sn(i) : Long.MAX_VALUE;
      long y = j < b.count() && b.sn(j) <= to ? b.sn(j) : Long.MAX_VALUE;
      if (x == Long.MAX_VALUE && y == Long.MAX_VALUE) {
        return;
      }
      if (x != y) {
        long missing = Math.min(x, y);
        Subscriber without = x < y ? b : a;
        violations.add(
            a + " and " + b + " diverge: sn " + missing + " not delivered to " + without.name);
        return;
      }
      i++;
      j++;
    }
  }

  private static int firstAtOrAfter(Subscriber s, long sn) {
    int i = 0;
    while (i < s.count() && s.sn(i) < sn) {
      i++;
    }
    return i;
  }

  /**
   * A member that was not seen counts as absent only when its color had a complete subscriber from
   * the start of the log, which would have delivered it.
   */
  private void checkAtomics(List<AtomicAppend> atomics) {
    for (AtomicAppend atomic : atomics) {
      List<Append> seen = new ArrayList<>();
      List<Append> absent = new ArrayList<>();
      for (Append member : atomic.members) {
        if (seenAt.containsKey(member)) {
          seen.add(member);
        } else if (fullyObserved(member.color)) {
          absent.add(member);
        }
      }
      if (!seen.isEmpty() && !absent.isEmpty()) {
        violations.add(
            atomic + " is not all-or-nothing: " + seen + " appeared, " + absent + " did not");
      }
    }
  }

  private boolean fullyObserved(String color) {
    for (Subscriber s : history.subscribers()) {
      if (s.color.equals(color) && s.isComplete() && s.fromSn <= 1) {
        return true;
      }
    }
    return false;
  }

  static String describe(byte[] payload) {
    if (payload.length >= Integer.BYTES + Long.BYTES) {
      ByteBuffer b = ByteBuffer.wrap(payload);
      return "[" + payload.length + " B, client " + b.getInt() + " #" + b.getLong() + "]";
    }
    return "[" + payload.length + " B]";
  }
}
