package io.flexlog.replica.replication;

import io.flexlog.core.model.Sn;
import io.flexlog.core.util.TokenLongMap;
import java.util.Arrays;

/**
 * Appends stored as pending on this replica and not yet committed: a pool of slots in parallel
 * arrays, found by token. No allocation per append once the pool has grown to the in-flight count.
 *
 * <p>Not thread-safe: owned by the replica's event-loop thread.
 */
final class PendingAppends {
  static final int NONE = -1;

  /** {@link #askedSequencer}: never put into an order request by this process. */
  static final int NOT_ASKED = -1;

  /** {@link #askedSequencer}: put into order requests for more than one sequencer process. */
  static final int ASKED_SEVERAL = -2;

  private final TokenLongMap slotByToken = new TokenLongMap(1024, NONE);
  private long[] tokenSession = new long[64];
  private long[] tokenSequence = new long[64];
  private long[] address = new long[64];
  private int[] shard = new int[64];
  private int[] color = new int[64];
  private long[] sn = new long[64];
  private long[] arrivalNs = new long[64];
  private long[] seenNs = new long[64];
  private boolean[] recovered = new boolean[64];
  private int[] askedSequencer = new int[64];
  private int[] askedIncarnation = new int[64];
  private Connection[] waiter = new Connection[64];
  private long[] waiterRequestId = new long[64];
  private boolean[] waiterBatch = new boolean[64];
  private int[] free = new int[64];
  private int freeCount;
  private int highWater;

  int size() {
    return slotByToken.size();
  }

  int find(long session, long sequence) {
    return (int) slotByToken.get(session, sequence);
  }

  int add(long session, long sequence, long entryAddress, int shardId, int colorId) {
    int slot = freeCount > 0 ? free[--freeCount] : nextSlot();
    tokenSession[slot] = session;
    tokenSequence[slot] = sequence;
    address[slot] = entryAddress;
    shard[slot] = shardId;
    color[slot] = colorId;
    sn[slot] = Sn.NONE;
    arrivalNs[slot] = 0;
    seenNs[slot] = 0;
    recovered[slot] = false;
    askedSequencer[slot] = NOT_ASKED;
    waiter[slot] = null;
    slotByToken.put(session, sequence, slot);
    return slot;
  }

  private int nextSlot() {
    if (highWater == tokenSession.length) {
      int n = highWater * 2;
      tokenSession = Arrays.copyOf(tokenSession, n);
      tokenSequence = Arrays.copyOf(tokenSequence, n);
      address = Arrays.copyOf(address, n);
      shard = Arrays.copyOf(shard, n);
      color = Arrays.copyOf(color, n);
      sn = Arrays.copyOf(sn, n);
      arrivalNs = Arrays.copyOf(arrivalNs, n);
      seenNs = Arrays.copyOf(seenNs, n);
      recovered = Arrays.copyOf(recovered, n);
      askedSequencer = Arrays.copyOf(askedSequencer, n);
      askedIncarnation = Arrays.copyOf(askedIncarnation, n);
      waiter = Arrays.copyOf(waiter, n);
      waiterRequestId = Arrays.copyOf(waiterRequestId, n);
      waiterBatch = Arrays.copyOf(waiterBatch, n);
      free = Arrays.copyOf(free, n);
    }
    return highWater++;
  }

  void remove(int slot) {
    slotByToken.remove(tokenSession[slot], tokenSequence[slot]);
    waiter[slot] = null;
    free[freeCount++] = slot;
  }

  /** The client connection to acknowledge; a retry on another connection replaces it. */
  void setWaiter(int slot, Connection connection, long requestId) {
    setWaiter(slot, connection, requestId, false);
  }

  /**
   * The client connection to acknowledge and how: {@code batch} for a record of an APPEND_BATCH
   * (acknowledged in an APPEND_BATCH_ACK with the other records of its request), else APPEND_ACK.
   */
  void setWaiter(int slot, Connection connection, long requestId, boolean batch) {
    waiter[slot] = connection;
    waiterRequestId[slot] = requestId;
    waiterBatch[slot] = batch;
  }

  boolean waiterBatch(int slot) {
    return waiterBatch[slot];
  }

  long tokenSession(int slot) {
    return tokenSession[slot];
  }

  long tokenSequence(int slot) {
    return tokenSequence[slot];
  }

  long address(int slot) {
    return address[slot];
  }

  int shard(int slot) {
    return shard[slot];
  }

  int color(int slot) {
    return color[slot];
  }

  /** When the APPEND arrived ({@link ReplicaRuntime#nanoTime}), 0 for a recovered entry. */
  long arrivalNs(int slot) {
    return arrivalNs[slot];
  }

  void setArrivalNs(int slot, long nanos) {
    arrivalNs[slot] = nanos;
  }

  /**
   * When a client last sent this record ({@link ReplicaRuntime#nanoTime}: its APPEND or a retry,
   * single or batched), 0 if no client did since this process recovered it. Decides whether a
   * record no replica has an SN for may still be ordered (docs/architecture.md#retention).
   */
  long seenNs(int slot) {
    return seenNs[slot];
  }

  void setSeenNs(int slot, long nanos) {
    seenNs[slot] = nanos;
  }

  /** True for a record this process found in the log at start (an earlier process stored it). */
  boolean recovered(int slot) {
    return recovered[slot];
  }

  void setRecovered(int slot) {
    recovered[slot] = true;
  }

  /**
   * The sequencer node this process put the record into an order request for, {@link #NOT_ASKED} if
   * it never did, {@link #ASKED_SEVERAL} if it asked more than one sequencer process.
   */
  int askedSequencer(int slot) {
    return askedSequencer[slot];
  }

  /** The incarnation of the one sequencer process asked (see {@link #askedSequencer}). */
  int askedIncarnation(int slot) {
    return askedIncarnation[slot];
  }

  /** Notes an order request for the record to sequencer process {@code (node, incarnation)}. */
  void asked(int slot, int sequencerId, int incarnation) {
    int before = askedSequencer[slot];
    if (sequencerId < 0) {
      askedSequencer[slot] = ASKED_SEVERAL; // unknown: counts as any process
    } else if (before == NOT_ASKED) {
      askedSequencer[slot] = sequencerId;
      askedIncarnation[slot] = incarnation;
    } else if (before != sequencerId || askedIncarnation[slot] != incarnation) {
      askedSequencer[slot] = ASKED_SEVERAL;
    }
  }

  long sn(int slot) {
    return sn[slot];
  }

  void setSn(int slot, long value) {
    sn[slot] = value;
  }

  Connection waiter(int slot) {
    return waiter[slot];
  }

  long waiterRequestId(int slot) {
    return waiterRequestId[slot];
  }

  /** Visits every slot still waiting for its SN. */
  void forEachUnassigned(SlotVisitor visitor) {
    slotByToken.forEach(
        (hi, lo, slot) -> {
          if (sn[(int) slot] == Sn.NONE) {
            visitor.accept((int) slot);
          }
        });
  }

  @FunctionalInterface
  interface SlotVisitor {
    void accept(int slot);
  }
}
