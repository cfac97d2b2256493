package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendBatchAckDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.ReplicaStatusDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SyncEntriesDescriptor;
import io.flexlog.core.protocol.SyncFetchDescriptor;
import io.flexlog.core.protocol.TailDescriptor;
import io.flexlog.core.protocol.TokenSyncDescriptor;
import io.flexlog.core.protocol.TokenSyncResponseDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.TrimResponseDescriptor;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;

/**
 * Every frame the replica's state machines send, encoded here from primitive arguments: replies to
 * clients (acks, read responses, errors, trim and metadata responses), subscription frames, and
 * token sync frames to and from the other replicas. The state machines never encode frames.
 *
 * <p>Writes are not flushed: the publisher remembers each connection written to ({@link #touch})
 * and the end of the turn flushes each of them once ({@link #flushTouched}). A reply to a client
 * request also asks for that end of turn; subscription frames are written from within it (or from
 * the heartbeat timer, which asks for it itself). METADATA_RESPONSE and refusals of unknown frame
 * types are flushed at once.
 *
 * <p>Threading: the replica's event loop.
 */
final class ReplicaPublisher {
  private final int nodeId;
  private final LogStorage storage;
  private final RecordBatchWriter records;
  private final Runnable requestTurn;
  private final ArrayList<Connection> touched = new ArrayList<>();

  /**
   * @param requestTurn asks for an end of turn, which flushes the connections written to
   */
  ReplicaPublisher(int nodeId, LogStorage storage, Runnable requestTurn) {
    this.nodeId = nodeId;
    this.storage = storage;
    this.records = new RecordBatchWriter(storage);
    this.requestTurn = requestTurn;
  }

  // ---------------------------------------------------------------- replies to client requests

  void ack(Connection c, long requestId, long session, long sequence, long sn, int colorId) {
    c.write(
        AppendAckDescriptor.encode(c.alloc(), requestId, session, sequence, sn, colorId, nodeId));
    replied(c);
  }

  /** APPEND_BATCH_ACK: the outcomes of some records of one APPEND_BATCH, in one frame. */
  void ackBatch(Connection c, long requestId, long session, int colorId, BatchOutcomes outcomes) {
    int count = outcomes.count();
    ByteBuf buf =
        AppendBatchAckDescriptor.encodeHeader(
            c.alloc(), requestId, session, colorId, nodeId, count);
    for (int i = 0; i < count; i++) {
      if (outcomes.code(i) == 0) {
        AppendBatchAckDescriptor.writeCommitted(buf, outcomes.sequence(i), outcomes.sn(i));
      } else {
        AppendBatchAckDescriptor.writeRefused(buf, outcomes.sequence(i), outcomes.code(i));
      }
    }
    c.write(buf);
    replied(c);
  }

  /** READ_RESPONSE FOUND with the payload of the log entry at {@code address}. */
  void found(Connection c, long requestId, int colorId, long sn, long address, long bound) {
    ByteBuf payload = storage.retainedPayload(address); // released by the connection once written
    c.write(
        ReadResponseDescriptor.encodeHeader(
            c.alloc(),
            requestId,
            ReadResponseDescriptor.FOUND,
            colorId,
            sn,
            bound,
            payload.readableBytes()));
    c.write(payload);
    replied(c);
  }

  /** READ_RESPONSE without a payload: ABSENT, RETRY or TRIMMED. */
  void readStatus(Connection c, long requestId, byte status, int colorId, long sn, long bound) {
    c.write(
        ReadResponseDescriptor.encodeHeader(c.alloc(), requestId, status, colorId, sn, bound, 0));
    replied(c);
  }

  void error(Connection c, long requestId, ErrorCode code, String message) {
    c.write(ErrorDescriptor.encode(c.alloc(), requestId, code, message));
    replied(c);
  }

  /** An ERROR flushed at once, outside the turn (a frame type the replica does not serve). */
  void errorNow(Connection c, long requestId, ErrorCode code, String message) {
    c.write(ErrorDescriptor.encode(c.alloc(), requestId, code, message));
    c.flush();
  }

  void trimmed(Connection c, long requestId, int colorId, long trimPoint, long tail) {
    c.write(TrimResponseDescriptor.encode(c.alloc(), requestId, colorId, trimPoint, tail));
    replied(c);
  }

  void tail(Connection c, long requestId, int colorId, long trimPoint, long tail) {
    c.write(TailDescriptor.encodeResponse(c.alloc(), requestId, colorId, trimPoint, tail));
    replied(c);
  }

  void replicaStatus(Connection c, long requestId, ReplicaDescription replica) {
    c.write(ReplicaStatusDescriptor.encodeResponse(c.alloc(), requestId, replica));
    replied(c);
  }

  /** METADATA_RESPONSE, flushed at once. */
  void metadata(Connection c, long requestId, Topology topology, int maxRecordBytes) {
    c.write(MetadataDescriptor.encodeResponse(c.alloc(), requestId, topology, maxRecordBytes));
    c.flush();
  }

  // ---------------------------------------------------------------- token sync

  /** Looks up the SN this replica knows for a token, {@code 0} if none. */
  @FunctionalInterface
  interface SnLookup {
    long sn(long session, long sequence);
  }

  /** TOKEN_SYNC_RESPONSE: for each token, the SN {@code known} gives for it. */
  void tokenSyncResponse(
      Connection c,
      long requestId,
      int shardId,
      long[] sessions,
      long[] sequences,
      SnLookup known) {
    ByteBuf response =
        TokenSyncResponseDescriptor.encodeHeader(
            c.alloc(), requestId, shardId, nodeId, sessions.length);
    for (int i = 0; i < sessions.length; i++) {
      response.writeLong(known.sn(sessions[i], sequences[i]));
    }
    c.write(response);
    replied(c);
  }

  /**
   * TRIM of a retention decision to replica node {@code peer}; sent on the gateway's next flush.
   */
  void retentionTrim(PeerGateway peers, int peer, long requestId, int colorId, long sn) {
    peers.send(peer, TrimDescriptor.encode(ByteBufAllocator.DEFAULT, requestId, colorId, sn));
  }

  /** TOKEN_SYNC to replica node {@code peer}; sent on the gateway's next flush. */
  void tokenSync(
      PeerGateway peers,
      int peer,
      long requestId,
      int shardId,
      int sequencerId,
      int incarnation,
      long[] sessions,
      long[] sequences) {
    ByteBuf frame =
        TokenSyncDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT,
            requestId,
            shardId,
            nodeId,
            sequencerId,
            incarnation,
            sessions.length);
    for (int i = 0; i < sessions.length; i++) {
      TokenSyncDescriptor.writeToken(frame, sessions[i], sequences[i]);
    }
    peers.send(peer, frame);
  }

  // ---------------------------------------------------------------- sync phase

  /** SYNC_FETCH to replica node {@code peer}; sent on the gateway's next flush. */
  void syncFetch(
      PeerGateway peers,
      int peer,
      long requestId,
      int shardId,
      int colorId,
      int sequencerId,
      int incarnation,
      long afterSn,
      long throughSn) {
    peers.send(
        peer,
        SyncFetchDescriptor.encode(
            ByteBufAllocator.DEFAULT,
            requestId,
            shardId,
            colorId,
            sequencerId,
            incarnation,
            afterSn,
            throughSn));
  }

  /**
   * SYNC_ENTRIES with the log's index entries {@code [from, to)} (their payloads copied: the sync
   * phase is not a hot path), or none when {@code from == to}.
   */
  void syncEntries(
      Connection c, long requestId, ColorLog log, int flags, long coveredSn, int from, int to) {
    int payloadBytes = 0;
    for (int i = from; i < to; i++) {
      payloadBytes += storage.payloadLength(log.index.addressAt(i));
    }
    ByteBuf frame =
        SyncEntriesDescriptor.encodeHeader(
            c.alloc(),
            requestId,
            log.shardId,
            log.colorId,
            nodeId,
            flags,
            coveredSn,
            storage.trimPoint(log.colorId),
            to - from,
            payloadBytes);
    for (int i = from; i < to; i++) {
      long address = log.index.addressAt(i);
      SyncEntriesDescriptor.writeEntry(
          frame,
          log.index.snAt(i),
          storage.tokenSession(address),
          storage.tokenSequence(address),
          storage.payloadLength(address));
    }
    for (int i = from; i < to; i++) {
      ByteBuf payload = storage.payload(log.index.addressAt(i));
      frame.writeBytes(payload, payload.readerIndex(), payload.readableBytes());
    }
    c.write(frame);
    replied(c);
  }

  // ---------------------------------------------------------------- subscription frames

  /**
   * The builder of SUBSCRIBE_RECORDS frames: {@link RecordBatchWriter#take} the records, then
   * {@link RecordBatchWriter#write} them (not touched).
   */
  RecordBatchWriter records() {
    return records;
  }

  /** SUBSCRIBE_PROGRESS (also the heartbeat); not touched. */
  void progress(Connection c, long id, int colorId, int shardId, long progress) {
    c.write(SubscribeProgressDescriptor.encode(c.alloc(), id, colorId, shardId, progress));
  }

  /** TOPOLOGY_MARK on a subscription; not touched. */
  void mark(Connection c, long id, int colorId, int shardId, long version, long markSn) {
    c.write(TopologyMarkDescriptor.encode(c.alloc(), id, colorId, shardId, version, markSn));
  }

  /** An ERROR ending a subscription, written from within the turn; not touched. */
  void subscriptionError(Connection c, long id, ErrorCode code, String message) {
    c.write(ErrorDescriptor.encode(c.alloc(), id, code, message));
  }

  // ---------------------------------------------------------------- flushing

  /** Remembers a connection written to, for {@link #flushTouched}. */
  void touch(Connection c) {
    if (!touched.contains(c)) {
      touched.add(c);
    }
  }

  /** Flushes every connection written to since the last call, once. */
  void flushTouched() {
    for (int i = 0; i < touched.size(); i++) {
      touched.get(i).flush();
    }
    touched.clear();
  }

  private void replied(Connection c) {
    touch(c);
    requestTurn.run();
  }
}
