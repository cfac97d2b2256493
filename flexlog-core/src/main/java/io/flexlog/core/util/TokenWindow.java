package io.flexlog.core.util;

import io.netty.util.collection.LongObjectHashMap;
import java.util.Arrays;

/**
 * A deduplication window of tokens (a client session and its sequence,
 * docs/architecture.md#concepts) to {@code long} values: per session, the newest {@code window}
 * sequences of that session, in a ring indexed by the sequence itself. Replicas keep their
 * committed tokens in one, sequencer roles the tokens they ordered
 * (docs/architecture.md#invariants).
 *
 * <p>A session's sequences grow by one per append, so a session's lookups and inserts land next to
 * each other in its ring: about one cache miss per few records, where a hash map over every token
 * cost several per record (flexlog-bench/README.md, DedupWindowBenchmark). A ring starts small and
 * doubles while two live sequences of its window share a slot, up to the window. The rings of all
 * sessions hold at most {@code 2 * window} slots (rounded up to powers of two): beyond that the
 * least recently used sessions are forgotten whole, so one busy session cannot push out the window
 * of another that is still active.
 *
 * <p>A token is found while its sequence is within {@code window} of the newest sequence put for
 * its session and the session was not forgotten; a put of an older one is ignored. The value {@code
 * missingValue} cannot be stored: it marks an empty slot. Not thread-safe: one owner thread.
 */
public final class TokenWindow {
  private static final int MIN_RING = 16;

  /** Returned by {@link #get} and {@link #remove} for a token that is not in the window. */
  public final long missingValue;

  private final long window;
  private final int maxRing;
  private final long slotBudget;
  private final LongObjectHashMap<Ring> rings = new LongObjectHashMap<>();
  private Ring recent;
  private Ring leastRecent;
  private Ring mostRecent;
  private long slots;

  /**
   * @param window how many of a session's newest sequences are remembered
   * @param missingValue what {@link #get} returns for an unknown token; never stored
   */
  public TokenWindow(int window, long missingValue) {
    if (window <= 0) {
      throw new IllegalArgumentException("window must be > 0: " + window);
    }
    this.window = window;
    this.missingValue = missingValue;
    this.maxRing = Math.max(MIN_RING, Integer.highestOneBit(window - 1) << 1);
    this.slotBudget = 2L * maxRing;
  }

  /** The token's value, or {@link #missingValue}. */
  public long get(long session, long sequence) {
    Ring ring = find(session);
    if (ring == null) {
      return missingValue;
    }
    int i = (int) sequence & ring.mask;
    if (ring.sequences[i] != sequence || outside(sequence, ring.newest)) {
      return missingValue; // a slot may still hold a sequence that has left the window
    }
    return ring.values[i];
  }

  /** Remembers the token's value, replacing any it had. */
  public void put(long session, long sequence, long value) {
    if (value == missingValue) {
      throw new IllegalArgumentException("cannot store the missing value " + value);
    }
    Ring ring = find(session);
    if (ring == null) {
      ring = new Ring(session, MIN_RING, missingValue);
      rings.put(session, ring);
      slots += MIN_RING;
      recent = ring;
    }
    touch(ring);
    if (sequence > ring.newest) {
      ring.newest = sequence;
    } else if (outside(sequence, ring.newest)) {
      return;
    }
    int i = (int) sequence & ring.mask;
    while (ring.mask + 1 < maxRing && holdsAnother(ring, i, sequence)) {
      grow(ring);
      i = (int) sequence & ring.mask;
    }
    // A full-size ring never holds two sequences of the window in one slot.
    ring.sequences[i] = sequence;
    ring.values[i] = value;
    forgetLeastRecent(ring);
  }

  /** Forgets the token; returns its value or {@link #missingValue}. */
  public long remove(long session, long sequence) {
    Ring ring = find(session);
    if (ring == null) {
      return missingValue;
    }
    int i = (int) sequence & ring.mask;
    if (ring.sequences[i] != sequence || ring.values[i] == missingValue) {
      return missingValue;
    }
    long previous = ring.values[i];
    ring.values[i] = missingValue;
    return previous;
  }

  /**
   * Visits every token in the window that has a value, as (session, sequence, value); the visitor
   * must not modify the window.
   */
  public void forEach(TokenLongMap.Visitor visitor) {
    for (Ring ring = leastRecent; ring != null; ring = ring.newer) {
      for (int i = 0; i < ring.sequences.length; i++) {
        if (ring.values[i] != missingValue && !outside(ring.sequences[i], ring.newest)) {
          visitor.accept(ring.session, ring.sequences[i], ring.values[i]);
        }
      }
    }
  }

  /**
   * A copy of the window that shares nothing with it, for one other thread to query while the owner
   * goes on (a background rewrite of stored tokens). Copies every slot: about 16 bytes per slot.
   */
  public TokenWindow copy() {
    TokenWindow copy = new TokenWindow((int) window, missingValue);
    for (Ring ring = leastRecent; ring != null; ring = ring.newer) {
      Ring twin = new Ring(ring.session, 1, missingValue);
      twin.sequences = ring.sequences.clone();
      twin.values = ring.values.clone();
      twin.mask = ring.mask;
      twin.newest = ring.newest;
      copy.rings.put(twin.session, twin);
      copy.slots += twin.sequences.length;
      copy.touch(twin);
    }
    return copy;
  }

  /** How many sessions are remembered. */
  public int sessions() {
    return rings.size();
  }

  /** Ring slots held by every session together (at most twice the window, rounded up). */
  public long slots() {
    return slots;
  }

  private boolean holdsAnother(Ring ring, int i, long sequence) {
    long held = ring.sequences[i];
    return held != sequence && ring.values[i] != missingValue && !outside(held, ring.newest);
  }

  private boolean outside(long sequence, long newest) {
    // newest - sequence as an unsigned distance: exact for any pair with sequence < newest.
    return sequence < newest && Long.compareUnsigned(newest - sequence, window) >= 0;
  }

  private Ring find(long session) {
    Ring ring = recent;
    if (ring != null && ring.session == session) {
      return ring;
    }
    ring = rings.get(session);
    if (ring != null) {
      recent = ring;
    }
    return ring;
  }

  private void grow(Ring ring) {
    long[] oldSequences = ring.sequences;
    long[] oldValues = ring.values;
    int capacity = oldSequences.length * 2;
    ring.sequences = new long[capacity];
    ring.values = Ring.empty(capacity, missingValue);
    ring.mask = capacity - 1;
    slots += oldSequences.length;
    for (int i = 0; i < oldSequences.length; i++) {
      long sequence = oldSequences[i];
      if (oldValues[i] != missingValue && !outside(sequence, ring.newest)) {
        int j = (int) sequence & ring.mask;
        ring.sequences[j] = sequence;
        ring.values[j] = oldValues[i];
      }
    }
  }

  /** Moves the ring to the most recently used end of the list. */
  private void touch(Ring ring) {
    if (mostRecent == ring) {
      return;
    }
    unlink(ring);
    ring.older = mostRecent;
    ring.newer = null;
    if (mostRecent != null) {
      mostRecent.newer = ring;
    }
    mostRecent = ring;
    if (leastRecent == null) {
      leastRecent = ring;
    }
  }

  private void unlink(Ring ring) {
    if (ring.older != null) {
      ring.older.newer = ring.newer;
    } else if (leastRecent == ring) {
      leastRecent = ring.newer;
    }
    if (ring.newer != null) {
      ring.newer.older = ring.older;
    } else if (mostRecent == ring) {
      mostRecent = ring.older;
    }
    ring.older = null;
    ring.newer = null;
  }

  private void forgetLeastRecent(Ring keep) {
    while (slots > slotBudget && leastRecent != null && leastRecent != keep) {
      Ring oldest = leastRecent;
      unlink(oldest);
      rings.remove(oldest.session);
      slots -= oldest.sequences.length;
      if (recent == oldest) {
        recent = null;
      }
    }
  }

  /** One session's newest sequences; a slot whose value is the missing value is empty. */
  private static final class Ring {
    final long session;
    long[] sequences;
    long[] values;
    int mask;
    long newest = Long.MIN_VALUE;
    Ring older;
    Ring newer;

    Ring(long session, int capacity, long missingValue) {
      this.session = session;
      this.sequences = new long[capacity];
      this.values = empty(capacity, missingValue);
      this.mask = capacity - 1;
    }

    static long[] empty(int capacity, long missingValue) {
      long[] values = new long[capacity];
      if (missingValue != 0) {
        Arrays.fill(values, missingValue);
      }
      return values;
    }
  }
}
