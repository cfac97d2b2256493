package io.flexlog.replica.replication;

import io.flexlog.core.protocol.SyncEntriesDescriptor;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The sync phase's catch-up (docs/architecture.md#sync-phase): closes the blind ranges of a {@link
 * ColorLog} by fetching, from every other replica of the shard, the records it committed there, so
 * that this replica holds every record any replica of the shard holds in the range; then an SN it
 * does not hold is a hole, reads of it are answered as such and subscriptions stream through it.
 *
 * <p>A peer answers for the range only once it is <em>settled</em> ({@link Host#settled}): its own
 * link to the shard's sequencer reached a process at least as recent as the asker's and delivered a
 * watermark at or above the range's end (so every order response with an SN in the range sent on
 * that link has arrived), and every token it held without an SN when that link came up has one.
 * Every SN in the range that a replica will ever commit is then committed on a settled replica,
 * which holds the token's record (an SN is only issued for a token a replica asked for, and the
 * asker keeps the record durably); the asker closes the range once every peer answered settled, in
 * full, and it is settled itself. Answers and closures happen at the end of a turn, after the
 * turn's commits are durable and indexed.
 *
 * <p>A fill ({@link #fillIfStuck}) whose SN a peer has trimmed ends with this replica taking the
 * peer's trim point: the record is gone from every replica that had it.
 *
 * <p>A peer that is down or unsettled holds the range open; requests are sent again every {@link
 * #RETRY_MS}. A lost sequencer link voids the fetches of its shards (the next watermark opens a new
 * range and a new fetch covers every open range).
 *
 * <p>Threading: the replica's event loop.
 */
final class RangeSync {
  /** Request ids of SYNC_FETCH; disjoint from the token sync's and the atomic forwarder's. */
  static final long REQUEST_ID_BASE = (1L << 62) | (1L << 61);

  static final long RETRY_MS = 200;

  /** At most this many records and about this many payload bytes per SYNC_ENTRIES. */
  static final int MAX_RECORDS = 1024;

  static final int MAX_BYTES = 256 * 1024;

  /**
   * How long an SN assigned to this shard may wait for its record before the replica fetches it
   * from its peers: the client that sent it may have given up on this replica, or died.
   */
  static final long FILL_AFTER_MS = 1000;

  /** The engine side of the sync. */
  interface Host {
    /** The other replicas of the shard. */
    int[] peersOf(int shardId);

    int sequencerOf(int shardId);

    /** The incarnation of the current welcomed link to the sequencer node, or 0. */
    int linkIncarnation(int sequencerId);

    /** See the class comment. */
    boolean settled(int shardId, int colorId, int sequencerId, int incarnation, long through);

    /** Commits or stores a fetched record; false when the log is full (fetch it again later). */
    boolean install(
        int shardId, int colorId, long session, long sequence, long sn, ByteBuf payload);

    /**
     * Blind ranges of the log were closed: {@code (from, through]}, after fetching {@code records}
     * records of {@code bytes} payload bytes from the peers.
     */
    void closed(ColorLog log, long from, long through, long records, long bytes);

    /**
     * A peer answered the fill of {@code awaitedSn} with its trim point of the color, at or beyond
     * it: the record is gone for good (see {@link Trims#adoptPeerTrim}).
     */
    void trimmedByPeer(ColorLog log, long peerTrimPoint, int peerNodeId, long awaitedSn);

    /** Asks for an end of turn, where {@link #afterCommits} and the checks run. */
    void requestTurn();
  }

  private final Host host;
  private final LogStorage storage;
  private final ReplicaRuntime runtime;
  private final ReplicaPublisher publisher;
  private PeerGateway peers;
  private final List<SyncFetch> fetches = new ArrayList<>();
  private final Long2ObjectHashMap<SyncFetch> byRequest = new Long2ObjectHashMap<>();
  private final List<Asked> asked = new ArrayList<>();
  private long nextRequestId = REQUEST_ID_BASE;
  private long started;
  private long closed;
  private long fetched;
  private long fetchedBytes;
  private long fills;

  RangeSync(Host host, LogStorage storage, ReplicaRuntime runtime, ReplicaPublisher publisher) {
    this.host = host;
    this.storage = storage;
    this.runtime = runtime;
    this.publisher = publisher;
  }

  void peers(PeerGateway peers) {
    this.peers = peers;
  }

  long started() {
    return started;
  }

  long closed() {
    return closed;
  }

  long fetched() {
    return fetched;
  }

  long fills() {
    return fills;
  }

  long fetchedBytes() {
    return fetchedBytes;
  }

  // ---------------------------------------------------------------- asking

  /**
   * Starts a fetch over every open blind range of the log, if its sequencer link is welcomed and
   * none runs; called for every log at the end of each turn.
   */
  void startIfNeeded(ColorLog log) {
    if (log.fetching || !log.hasBlindRanges() || log.watermarkOnLink() < 0) {
      return;
    }
    int sequencerId = host.sequencerOf(log.shardId);
    int incarnation = host.linkIncarnation(sequencerId);
    if (incarnation == 0) {
      return;
    }
    int[] peerIds = peers == null ? new int[0] : host.peersOf(log.shardId);
    SyncFetch fetch =
        new SyncFetch(
            log, sequencerId, incarnation, log.firstBlindFrom(), log.lastBlindTo(), peerIds, false);
    log.fetching = true;
    fetches.add(fetch);
    started++;
    for (int i = 0; i < peerIds.length; i++) {
      send(fetch, i);
    }
    if (peerIds.length > 0) {
      peers.flush();
    }
    scheduleRetry(fetch);
  }

  /**
   * Fetches, from the peers, the records of the SNs the log has been waiting for for {@link
   * #FILL_AFTER_MS} (assigned here, record never received); any peer that committed them answers.
   * One fill covers the run of overdue SNs from the smallest on (at most {@link #MAX_RECORDS} of
   * them), and once the smallest is here the next fill starts at once if the next SN is overdue
   * too: a client that died in the middle of a batch leaves a run of awaited SNs, which would
   * otherwise cost {@link #FILL_AFTER_MS} each. Called for every log at the end of each turn.
   */
  void fillIfStuck(ColorLog log) {
    long first = log.firstAwaiting();
    if (first == 0 || peers == null) {
      log.fillSn = 0;
      return;
    }
    long now = runtime.nanoTime();
    long fillAfter = TimeUnit.MILLISECONDS.toNanos(FILL_AFTER_MS);
    long dueIn = log.firstAwaitingSince() + fillAfter - now;
    if (log.fillSn != first) {
      log.fillSn = first;
      if (dueIn > 0) {
        // Look again when the record is overdue, even if nothing else ends a turn meanwhile.
        runtime.schedule(host::requestTurn, dueIn);
        return;
      }
    }
    if (log.filling || dueIn > 0) {
      return;
    }
    long through = Math.max(first, log.overdueThrough(now - fillAfter, MAX_RECORDS));
    int sequencerId = host.sequencerOf(log.shardId);
    int[] peerIds = host.peersOf(log.shardId);
    if (peerIds.length == 0) {
      return;
    }
    SyncFetch fetch =
        new SyncFetch(
            log, sequencerId, host.linkIncarnation(sequencerId), first - 1, through, peerIds, true);
    log.filling = true;
    fetches.add(fetch);
    fills++;
    for (int i = 0; i < peerIds.length; i++) {
      send(fetch, i);
    }
    peers.flush();
    scheduleRetry(fetch);
  }

  /** Ends the fetches of one shard (its role moved; they restart against the new leader). */
  void cancelShard(int shardId) {
    for (int i = fetches.size() - 1; i >= 0; i--) {
      SyncFetch fetch = fetches.get(i);
      if (fetch.log.shardId == shardId) {
        drop(fetch);
      }
    }
  }

  /** The link to a sequencer broke: the fetches of its shards are void. */
  void cancel(int sequencerId) {
    for (int i = fetches.size() - 1; i >= 0; i--) {
      SyncFetch fetch = fetches.get(i);
      if (fetch.sequencerId == sequencerId) {
        drop(fetch);
      }
    }
  }

  private void drop(SyncFetch fetch) {
    fetches.remove(fetch);
    if (fetch.fill) {
      fetch.log.filling = false;
    } else {
      fetch.log.fetching = false;
    }
    fetch.cancelled = true;
    if (fetch.retry != null) {
      fetch.retry.cancel();
    }
    for (long id : fetch.requestIds) {
      byRequest.remove(id);
    }
    for (long id : fetch.previousRequestIds) {
      byRequest.remove(id);
    }
  }

  private void send(SyncFetch fetch, int peer) {
    // The request sent before this one stays answerable: on a slow link its answer arrives after
    // the retry, and a fetch that only took the newest answer would never complete.
    byRequest.remove(fetch.previousRequestIds[peer]);
    fetch.previousRequestIds[peer] = fetch.requestIds[peer];
    long id = nextRequestId++;
    fetch.requestIds[peer] = id;
    byRequest.put(id, fetch);
    publisher.syncFetch(
        peers,
        fetch.peerIds[peer],
        id,
        fetch.log.shardId,
        fetch.log.colorId,
        fetch.sequencerId,
        fetch.incarnation,
        fetch.cursors[peer],
        fetch.through);
  }

  private void scheduleRetry(SyncFetch fetch) {
    fetch.retry =
        runtime.schedule(
            () -> {
              if (fetch.cancelled) {
                return;
              }
              boolean sent = false;
              for (int i = 0; i < fetch.peerIds.length; i++) {
                if (!fetch.done[i]) {
                  send(fetch, i);
                  sent = true;
                }
              }
              if (sent) {
                peers.flush();
              }
              scheduleRetry(fetch);
            },
            TimeUnit.MILLISECONDS.toNanos(RETRY_MS));
  }

  /** SYNC_ENTRIES from a peer. */
  void onEntries(long requestId, ByteBuf frame) {
    SyncFetch fetch = byRequest.get(requestId);
    if (fetch == null) {
      return; // an answer to a request sent again since, or to a void fetch
    }
    int peer = fetch.peerIndex(SyncEntriesDescriptor.replicaNodeId(frame));
    if (peer < 0
        || (fetch.requestIds[peer] != requestId && fetch.previousRequestIds[peer] != requestId)) {
      return;
    }
    byRequest.remove(requestId);
    if (fetch.fill && SyncEntriesDescriptor.trimPoint(frame) >= fetch.firstAwaited()) {
      // The peer committed the record and trimmed it since: it is gone, and awaiting it would stop
      // this log for ever. The fill ends at the turn's end, once the SN is no longer awaited; the
      // records of the run above the peer's trim point, if any, are in this answer.
      host.trimmedByPeer(
          fetch.log,
          SyncEntriesDescriptor.trimPoint(frame),
          fetch.peerIds[peer],
          fetch.firstAwaited());
    }
    int flags = SyncEntriesDescriptor.flags(frame);
    boolean settled = (flags & SyncEntriesDescriptor.SETTLED) != 0;
    int count = SyncEntriesDescriptor.count(frame);
    int at = SyncEntriesDescriptor.payloadsStart(frame);
    for (int i = 0; i < count; i++) {
      int length = SyncEntriesDescriptor.payloadLength(frame, i);
      long sn = SyncEntriesDescriptor.sn(frame, i);
      if (!host.install(
          fetch.log.shardId,
          fetch.log.colorId,
          SyncEntriesDescriptor.tokenSession(frame, i),
          SyncEntriesDescriptor.tokenSequence(frame, i),
          sn,
          frame.slice(at, length))) {
        return; // no room: the retry timer fetches again from the cursor
      }
      fetched++;
      fetchedBytes += length;
      fetch.records++;
      fetch.bytes += length;
      if (settled) {
        fetch.cursors[peer] = Math.max(fetch.cursors[peer], sn);
      }
      at += length;
    }
    if (!settled || fetch.fill) {
      // A fill is done once the record is here; an unsettled peer's records are kept, but its
      // answer is not complete: the retry timer asks again from the same cursor.
      return;
    }
    fetch.cursors[peer] = Math.max(fetch.cursors[peer], SyncEntriesDescriptor.coveredSn(frame));
    if ((flags & SyncEntriesDescriptor.MORE) != 0) {
      send(fetch, peer);
      peers.flush();
    } else {
      fetch.done[peer] = true;
    }
  }

  // ---------------------------------------------------------------- end of turn

  /**
   * Answers the SYNC_FETCH requests of the turn and closes the ranges of complete fetches; call at
   * the end of a turn, after its commits are durable and indexed.
   */
  void afterCommits() {
    for (int i = 0; i < asked.size(); i++) {
      answer(asked.get(i));
    }
    asked.clear();
    for (int i = fetches.size() - 1; i >= 0; i--) {
      SyncFetch fetch = fetches.get(i);
      if (fetch.fill) {
        if (!fetch.log.awaits(fetch.firstAwaited())) {
          drop(fetch);
        }
        continue;
      }
      if (fetch.complete()
          && host.settled(
              fetch.log.shardId,
              fetch.log.colorId,
              fetch.sequencerId,
              fetch.incarnation,
              fetch.through)) {
        drop(fetch);
        fetch.log.closeBlindThrough(fetch.through);
        closed++;
        host.closed(fetch.log, fetch.from, fetch.through, fetch.records, fetch.bytes);
      }
    }
  }

  // ---------------------------------------------------------------- answering

  /** SYNC_FETCH from a peer: answered at the end of the turn. */
  void onFetch(
      Connection c,
      long requestId,
      ColorLog log,
      int sequencerId,
      int incarnation,
      long afterSn,
      long throughSn) {
    asked.add(new Asked(c, requestId, log, sequencerId, incarnation, afterSn, throughSn));
  }

  private void answer(Asked a) {
    if (!a.connection.isActive()) {
      return;
    }
    ColorLog log = a.log;
    boolean settled =
        host.settled(log.shardId, log.colorId, a.sequencerId, a.incarnation, a.through);
    long after = Math.max(a.after, storage.trimPoint(log.colorId));
    int from = log.index.ceilingPosition(after + 1);
    int to = from;
    long bytes = 0;
    while (to < log.index.size()
        && log.index.snAt(to) <= a.through
        && to - from < MAX_RECORDS
        && bytes < MAX_BYTES) {
      bytes += storage.payloadLength(log.index.addressAt(to));
      to++;
    }
    boolean more = to < log.index.size() && log.index.snAt(to) <= a.through;
    long covered = more ? log.index.snAt(to - 1) : a.through;
    int flags =
        (settled ? SyncEntriesDescriptor.SETTLED : 0) | (more ? SyncEntriesDescriptor.MORE : 0);
    publisher.syncEntries(a.connection, a.requestId, log, flags, covered, from, to);
  }

  // ---------------------------------------------------------------- state

  private record Asked(
      Connection connection,
      long requestId,
      ColorLog log,
      int sequencerId,
      int incarnation,
      long after,
      long through) {}
}
