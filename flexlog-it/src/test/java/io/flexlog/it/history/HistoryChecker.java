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
 * Checks a {@link History} against FlexLog's guarantees
 * (docs/architecture.md#how-the-invariants-are-checked) and lists every violation:
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
 *   <li>all subscribers of a color see the same sequence where their ranges overlap, and deliver
 *       every record that a read returned in the range they covered;
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

  /** Per color, SN -> the first read or subscriber that observed a record there. */
  private final Map<String, Map<Long, Object>> witnesses = new HashMap<>();

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
      place(a, a.sn(), "acknowledged", "its producer");
    }
  }

  /** Records that {@code a} is at {@code sn} in its color; reports any conflict. */
  private void place(Append a, long sn, String how, Object witness) {
    witnesses.computeIfAbsent(a.color, c -> new HashMap<>()).putIfAbsent(sn, witness);
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
      place(a, read.sn, "read", read);
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
        place(a, sn, "delivered to " + s.name, s);
      }
    }
  }

  /**
   * Runs after every observation is placed, so that {@link #placed} is the merged reference of a
   * color: every record acknowledged, read or delivered to any subscriber, at its SN. Each
   * subscriber must deliver every record of that reference in the range it covered, from its start
   * to the last SN it delivered; this compares every subscriber with every other over their common
   * range (a record one delivered and another skipped lies in both ranges), whatever the order of
   * the subscribers, and also catches a record that reads return but a subscription skips. A
   * subscriber that delivered nothing covered no range and is only held to {@link
   * Subscriber#isComplete}.
   */
  private void checkSubscribersAgree(List<Subscriber> subscribers) {
    for (Subscriber s : subscribers) {
      checkComplete(s);
      checkCoverage(s);
    }
  }

  private void checkComplete(Subscriber s) {
    if (!s.isComplete()) {
      return;
    }
    TreeMap<Long, Append> there = placed.getOrDefault(s.color, new TreeMap<>());
    for (Append a : there.descendingMap().values()) {
      if (a.outcome() == Outcome.ACKED) {
        if (a.sn() >= s.fromSn && s.lastSn() < a.sn()) {
          violations.add(s + " completed at sn " + s.lastSn() + " but " + a + " was acknowledged");
        }
        return;
      }
    }
  }

  private void checkCoverage(Subscriber s) {
    int n = s.count();
    if (n == 0) {
      return;
    }
    TreeMap<Long, Append> there = placed.getOrDefault(s.color, new TreeMap<>());
    int i = 0;
    for (Map.Entry<Long, Append> e : there.subMap(s.fromSn, true, s.lastSn(), true).entrySet()) {
      long sn = e.getKey();
      while (i < n && s.sn(i) < sn) {
        i++;
      }
      if (i < n && s.sn(i) == sn) {
        continue;
      }
      Append a = e.getValue();
      Object witness = witnesses.get(s.color).get(sn);
      if (a.outcome() == Outcome.ACKED) {
        violations.add(s + " skipped " + a);
      } else if (witness instanceof Subscriber other) {
        violations.add(other + " and " + s + " diverge: sn " + sn + " not delivered to " + s.name);
      } else {
        violations.add(s + " skipped " + a + " at sn " + sn + ", which " + witness + " returned");
      }
    }
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
