package io.flexlog.replica.replication;

import io.flexlog.core.model.Sn;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The committed tokens a replica remembers, to answer a retried append with the SN it already has
 * (docs/architecture.md#invariants): per client session, the newest {@code window} sequences of
 * that session, in a ring indexed by the sequence itself.
 *
 * <p>A session's sequences grow by one per append, so a session's lookups and inserts land next to
 * each other in its ring: the window costs about one cache miss per few records, where a hash map
 * over every token of the replica cost several per record (flexlog-bench/README.md,
 * DedupWindowBenchmark). A ring starts small and doubles while two live sequences of its window
 * share a slot, up to the window. The rings of all sessions hold at most {@code 2 * window} slots:
 * beyond that the least recently used sessions are forgotten whole, so one busy session cannot push
 * out the window of another that is still active.
 *
 * <p>A retry is recognised while its sequence is within {@code window} of the newest sequence this
 * replica committed for the session and the session was not forgotten. Not thread-safe: owned by
 * the replica's event loop.
 */
final class CommittedTokens {
  private static final int MIN_RING = 16;

  private final long window;
  private final int maxRing;
  private final long slotBudget;
  private final Long2ObjectHashMap<Ring> rings = new Long2ObjectHashMap<>();
  private Ring recent;
  private Ring leastRecent;
  private Ring mostRecent;
  private long slots;

  /**
   * @param window how many of a session's newest sequences are remembered
   */
  CommittedTokens(int window) {
    if (window <= 0) {
      throw new IllegalArgumentException("window must be > 0: " + window);
    }
    this.window = window;
    this.maxRing = Math.max(MIN_RING, Integer.highestOneBit(window - 1) << 1);
    this.slotBudget = 2L * maxRing;
  }

  /** The SN committed for the token, or {@link Sn#NONE}. */
  long get(long session, long sequence) {
    Ring ring = find(session);
    if (ring == null) {
      return Sn.NONE;
    }
    int i = (int) sequence & ring.mask;
    return ring.sequences[i] == sequence ? ring.sns[i] : Sn.NONE;
  }

  /** Remembers the token's SN ({@code sn} is never {@link Sn#NONE}). */
  void put(long session, long sequence, long sn) {
    Ring ring = find(session);
    if (ring == null) {
      ring = new Ring(session, MIN_RING);
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
    ring.sns[i] = sn;
    forgetLeastRecent(ring);
  }

  /** How many sessions are remembered. */
  int sessions() {
    return rings.size();
  }

  /** Ring slots held by every session together (at most twice the window, rounded up). */
  long slots() {
    return slots;
  }

  private boolean holdsAnother(Ring ring, int i, long sequence) {
    long held = ring.sequences[i];
    return held != sequence && ring.sns[i] != Sn.NONE && !outside(held, ring.newest);
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
    long[] oldSns = ring.sns;
    int capacity = oldSequences.length * 2;
    ring.sequences = new long[capacity];
    ring.sns = new long[capacity];
    ring.mask = capacity - 1;
    slots += oldSequences.length;
    for (int i = 0; i < oldSequences.length; i++) {
      long sequence = oldSequences[i];
      if (oldSns[i] != Sn.NONE && !outside(sequence, ring.newest)) {
        int j = (int) sequence & ring.mask;
        ring.sequences[j] = sequence;
        ring.sns[j] = oldSns[i];
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

  /** One session's newest sequences; a slot whose SN is {@link Sn#NONE} is empty. */
  private static final class Ring {
    final long session;
    long[] sequences;
    long[] sns;
    int mask;
    long newest = Long.MIN_VALUE;
    Ring older;
    Ring newer;

    Ring(long session, int capacity) {
      this.session = session;
      this.sequences = new long[capacity];
      this.sns = new long[capacity];
      this.mask = capacity - 1;
    }
  }
}
