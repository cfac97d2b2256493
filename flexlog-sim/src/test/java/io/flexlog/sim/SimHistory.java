package io.flexlog.sim;

import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendBatchAckDescriptor;
import io.flexlog.core.protocol.AppendBatchDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the simulation has observed and the invariants over it, checked as each observation comes
 * in: one SN per append token, one record per SN, SNs issued increasing per color, reads that
 * return the record appended at their SN (and never a hole for an acknowledged one), and
 * subscribers of a color that agree with each other.
 */
final class SimHistory {
  /** An append token: client session and per-session sequence. */
  record Token(long session, long sequence) {
    @Override
    public String toString() {
      return Long.toHexString(session) + ":" + sequence;
    }
  }

  record ColorSn(int colorId, long sn) {
    @Override
    public String toString() {
      return "color " + colorId + " SN " + Sn.describe(sn);
    }
  }

  /** An append the client saw acknowledged. */
  record Acked(int colorId, long sn, String payload) {}

  private final SimWorld world;
  private final Map<Token, String> payloads = new HashMap<>();
  private final Map<Token, ColorSn> ackedAt = new HashMap<>();
  private final Map<ColorSn, Token> ackedToken = new HashMap<>();
  private final Map<ColorSn, String> records = new HashMap<>();
  private final Map<Integer, Long> lastIssued = new HashMap<>();
  final Map<ColorSn, Acked> acked = new HashMap<>();
  private final Map<String, ColorSn> clientAckedAt = new HashMap<>();

  /** Per replica node, every SN it acknowledged an append at, and the payload. */
  final Map<Integer, Map<ColorSn, String>> ackedByReplica = new HashMap<>();

  /** When the append of each acknowledged record began (virtual ms). */
  private final Map<ColorSn, Long> appendStartMs = new HashMap<>();

  /** Per color id, the largest SN a client asked to trim through: reads there may be TRIMMED. */
  final Map<Integer, Long> trimAsked = new HashMap<>();

  long issued;

  SimHistory(SimWorld world) {
    this.world = world;
  }

  /** A client asked to trim color {@code colorId} through {@code throughSn}. */
  void onTrimAsked(int colorId, long throughSn) {
    trimAsked.merge(colorId, throughSn, Math::max);
  }

  /** Appends going to replicas carry the token's payload; acks coming back bind it to an SN. */
  void onDeliver(SimLink.End to, ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    if (type == MessageType.APPEND) {
      onAppendSent(
          new Token(AppendDescriptor.tokenSession(frame), AppendDescriptor.tokenSequence(frame)),
          AppendDescriptor.payload(frame).toString(StandardCharsets.UTF_8));
    } else if (type == MessageType.APPEND_BATCH) {
      int at = AppendBatchDescriptor.payloadsStart(frame);
      for (int i = 0; i < AppendBatchDescriptor.count(frame); i++) {
        int length = AppendBatchDescriptor.payloadLength(frame, i);
        onAppendSent(
            new Token(
                AppendBatchDescriptor.tokenSession(frame),
                AppendBatchDescriptor.tokenSequence(frame, i)),
            frame.toString(at, length, StandardCharsets.UTF_8));
        at += length;
      }
    } else if (type == MessageType.APPEND_BATCH_ACK) {
      for (int i = 0; i < AppendBatchAckDescriptor.count(frame); i++) {
        if (AppendBatchAckDescriptor.errorCode(frame, i) == 0) {
          onAppendAck(
              AppendBatchAckDescriptor.replicaNodeId(frame),
              new Token(
                  AppendBatchAckDescriptor.tokenSession(frame),
                  AppendBatchAckDescriptor.tokenSequence(frame, i)),
              AppendBatchAckDescriptor.colorId(frame),
              AppendBatchAckDescriptor.sn(frame, i));
        }
      }
    } else if (type == MessageType.ORDER_RESPONSE && world.failover != null) {
      world.failover.onOrderResponse(to, frame);
    } else if (type == MessageType.APPEND_ACK) {
      onAppendAck(
          AppendAckDescriptor.replicaNodeId(frame),
          new Token(
              AppendAckDescriptor.tokenSession(frame), AppendAckDescriptor.tokenSequence(frame)),
          AppendAckDescriptor.colorId(frame),
          AppendAckDescriptor.sn(frame));
    }
  }

  /** An APPEND frame left a client: the token carries this payload. */
  void onAppendSent(Token token, String payload) {
    String before = payloads.putIfAbsent(token, payload);
    if (before != null && !before.equals(payload)) {
      world.fail("token " + token + " sent with two payloads: " + before + " and " + payload);
    }
  }

  /** A replica acknowledged {@code token} at {@code sn}: one SN per token, one token per SN. */
  void onAppendAck(int replicaId, Token token, int colorId, long sn) {
    ColorSn at = new ColorSn(colorId, sn);
    ColorSn before = ackedAt.putIfAbsent(token, at);
    if (before != null && !before.equals(at)) {
      world.fail(
          Invariant.ONE_SN_PER_TOKEN,
          "one append at two SNs: token "
              + token
              + " acknowledged at "
              + before
              + " and, by replica "
              + replicaId
              + ", at "
              + at
              + " (payload "
              + payloads.get(token)
              + ")");
    }
    Token owner = ackedToken.putIfAbsent(at, token);
    if (owner != null && !owner.equals(token)) {
      world.fail(
          Invariant.ONE_RECORD_PER_SN,
          at + " acknowledged for two tokens: " + owner + " and " + token);
    }
    String payload = payloads.get(token);
    if (payload != null) {
      observe(at, payload, "replica " + replicaId + "'s ack");
      ackedByReplica.computeIfAbsent(replicaId, k -> new HashMap<>()).put(at, payload);
    }
  }

  /** A role issued {@code [firstSn, firstSn + count)} of its color. */
  void onIssued(int colorId, long firstSn, int count) {
    long last = lastIssued.getOrDefault(colorId, 0L);
    if (firstSn <= last) {
      world.fail(
          Invariant.SNS_INCREASE,
          "color "
              + colorId
              + " issued "
              + Sn.describe(firstSn)
              + " after "
              + Sn.describe(last)
              + ": SNs must strictly increase");
    }
    lastIssued.put(colorId, firstSn + count - 1);
    issued += count;
  }

  /**
   * The client completed an append that began at {@code startMs}: its record must stay at that SN
   * for good (or until retention or a trim takes it).
   */
  void onAcked(int colorId, long sn, String payload, long startMs) {
    ColorSn at = new ColorSn(colorId, sn);
    appendStartMs.merge(at, startMs, Math::min);
    ColorSn before = clientAckedAt.putIfAbsent(payload, at);
    if (before != null && !before.equals(at)) {
      world.fail(
          Invariant.ONE_SN_PER_TOKEN,
          "the client saw append " + payload + " acknowledged at " + before + " and at " + at);
    }
    observe(at, payload, "the client's ack");
    if (world.failover != null) {
      world.failover.onAcked(colorId, sn);
    }
    acked.put(at, new Acked(colorId, sn, payload));
  }

  /** When the append acknowledged at {@code sn} of the color began, or -1 if none was. */
  long appendStartMs(int colorId, long sn) {
    return appendStartMs.getOrDefault(new ColorSn(colorId, sn), -1L);
  }

  /** A read of {@code sn} returned {@code payload}, or null for a hole. */
  void onRead(int colorId, long sn, String payload) {
    ColorSn at = new ColorSn(colorId, sn);
    if (payload == null) {
      return; // a hole; SimOperations fails it if the record was acknowledged before the read
    }
    observe(at, payload, "a read");
  }

  /** Every payload some observer saw stored (acknowledged, read or delivered). */
  final java.util.Set<String> stored = new java.util.HashSet<>();

  /** A record reached some observer: no SN of a color ever holds two records. */
  void observe(ColorSn at, String payload, String who) {
    stored.add(payload);
    String before = records.putIfAbsent(at, payload);
    if (before != null && !before.equals(payload)) {
      world.fail(
          Invariant.ONE_RECORD_PER_SN,
          at + " holds " + before + " but " + who + " says " + payload);
    }
  }

  /**
   * Every pair of subscribers of a color agrees over the SN range both have passed: the same
   * records at the same SNs, nothing one has that the other skipped.
   */
  void checkSubscribers(String color, List<SimSubscriber> subscribers) {
    for (int i = 0; i < subscribers.size(); i++) {
      for (int j = i + 1; j < subscribers.size(); j++) {
        SimSubscriber a = subscribers.get(i);
        SimSubscriber b = subscribers.get(j);
        long upTo = Math.min(a.lastSn(), b.lastSn());
        int colorId = a.colorId;
        int ia = 0;
        int ib = 0;
        while (true) {
          long sa = ia < a.size() ? a.sn(ia) : Long.MAX_VALUE;
          long sb = ib < b.size() ? b.sn(ib) : Long.MAX_VALUE;
          if (Math.min(sa, sb) > upTo) {
            break;
          }
          if (sa != sb) {
            long missing = Math.min(sa, sb);
            SimSubscriber lacks = sa < sb ? b : a;
            if (!world.retention.skippable(colorId, missing)) {
              world.fail(
                  Invariant.SUBSCRIBERS_AGREE,
                  "subscribers of "
                      + color
                      + " disagree: "
                      + lacks
                      + " skipped SN "
                      + Sn.describe(missing)
                      + " that "
                      + (lacks == a ? b : a)
                      + " delivered");
            }
            if (sa < sb) {
              ia++;
            } else {
              ib++;
            }
            continue;
          }
          if (!Objects.equals(a.payload(ia), b.payload(ib))) {
            world.fail(
                Invariant.ONE_RECORD_PER_SN,
                "subscribers of " + color + " got two records at SN " + Sn.describe(sa));
          }
          ia++;
          ib++;
        }
      }
    }
  }
}
