package io.flexlog.sequencer;

import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.protocol.WelcomeDescriptor;
import io.flexlog.sequencer.ordering.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A fake replica of one shard in the {@link TreeSimulation}: it holds the tokens appended to its
 * shard, asks its shard's sequencer node for their SNs the way a real replica does (HELLO on every
 * connection, then every token still without an SN; new tokens as they come), and checks, for each
 * frame it receives, the invariants a replica relies on:
 *
 * <ul>
 *   <li>watermark order (docs/architecture.md#watermarks): on one connection, an SN it learns for
 *       the first time is above every watermark of that color it already processed on that
 *       connection, unless it is at or below the first watermark of the connection (the catch-up,
 *       which a replica treats as a span it may have missed while it was not connected);
 *   <li>an SN never belongs to two tokens, and one incarnation of a leaf never gives a token two
 *       SNs (checked with the world).
 * </ul>
 */
final class SimReplica {
  /** A token of this shard: its color, whether the record arrived here, its SN once known. */
  static final class Entry {
    final TreeSimulation.TokenKey token;
    final int colorId;
    boolean present;
    long sn;
    int requestedOn = -1;

    Entry(TreeSimulation.TokenKey token, int colorId) {
      this.token = token;
      this.colorId = colorId;
    }
  }

  final int nodeId;
  final Shard shard;
  final int leafNodeId;
  private final TreeSimulation world;
  SimConnection conn;
  final Map<TreeSimulation.TokenKey, Entry> entries = new LinkedHashMap<>();
  private final Map<Integer, Long> firstWatermark = new HashMap<>();
  private final Map<Integer, Long> maxWatermark = new HashMap<>();
  final Map<Integer, Long> maxLearned = new HashMap<>();

  /** TOPOLOGY_MARKs received, over all connections. */
  int marks;

  /** The incarnation of the last WELCOME: a restarted sequencer process presents a larger one. */
  private int lastIncarnation;

  SimReplica(int nodeId, Shard shard, int leafNodeId, TreeSimulation world) {
    this.nodeId = nodeId;
    this.shard = shard;
    this.leafNodeId = leafNodeId;
    this.world = world;
  }

  /** The record of an append arrived here. */
  void receive(TreeSimulation.TokenKey token, int colorId) {
    Entry entry = entries.computeIfAbsent(token, t -> new Entry(t, colorId));
    if (entry.colorId != colorId) {
      throw new AssertionError("token " + token + " appended in two colors");
    }
    entry.present = true;
  }

  void onConnected(SimConnection connection) {
    conn = connection;
    firstWatermark.clear();
    maxWatermark.clear();
    Outbound out = connection.initiatorOutbound();
    out.write(
        HelloDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, nodeId, new int[] {shard.id()}));
    Map<Integer, List<Entry>> byColor = new LinkedHashMap<>();
    for (Entry e : entries.values()) {
      if (e.present && e.sn == 0) {
        byColor.computeIfAbsent(e.colorId, c -> new ArrayList<>()).add(e);
      }
    }
    byColor.forEach((color, list) -> out.write(request(color, list)));
    out.flush();
  }

  void onClosed() {
    conn = null;
  }

  /** Tokens here without an SN that were not requested on the current connection. */
  List<Entry> unrequested() {
    List<Entry> list = new ArrayList<>();
    if (conn != null) {
      for (Entry e : entries.values()) {
        if (e.present && e.sn == 0 && e.requestedOn != conn.id) {
          list.add(e);
        }
      }
    }
    return list;
  }

  /**
   * Sends one ORDER_REQUEST for some tokens of one color; with {@code again}, tokens already
   * requested on this connection are asked for again (a duplicate the sequencer must deduplicate).
   */
  boolean sendSome(Random random, boolean again) {
    List<Entry> candidates = new ArrayList<>();
    for (Entry e : entries.values()) {
      boolean wanted = again ? e.requestedOn == conn.id : e.requestedOn != conn.id && e.sn == 0;
      if (e.present && wanted) {
        candidates.add(e);
      }
    }
    if (candidates.isEmpty()) {
      return false;
    }
    int color = candidates.get(random.nextInt(candidates.size())).colorId;
    List<Entry> chosen = new ArrayList<>();
    for (Entry e : candidates) {
      if (e.colorId == color && (chosen.isEmpty() || random.nextInt(3) > 0) && chosen.size() < 6) {
        chosen.add(e);
      }
    }
    Outbound out = conn.initiatorOutbound();
    out.write(request(color, chosen));
    out.flush();
    return true;
  }

  private ByteBuf request(int colorId, List<Entry> tokens) {
    ByteBuf frame =
        OrderRequestDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, colorId, shard.id(), nodeId, tokens.size());
    for (Entry e : tokens) {
      OrderRequestDescriptor.writeToken(frame, e.token.session(), e.token.sequence());
      e.requestedOn = conn.id;
    }
    return frame;
  }

  void onFrame(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    switch (type) {
      case MessageType.ORDER_RESPONSE -> onOrderResponse(frame);
      case MessageType.WATERMARK -> {
        int color = WatermarkDescriptor.colorId(frame);
        long watermark = WatermarkDescriptor.watermark(frame);
        world.checkWatermark(color, watermark);
        firstWatermark.putIfAbsent(color, watermark);
        maxWatermark.merge(color, watermark, Math::max);
      }
      case MessageType.TOPOLOGY_MARK -> {
        // A join mark travels behind the responses and watermarks written before it and ahead of
        // every later watermark: no watermark of this connection may have reached it yet.
        int color = TopologyMarkDescriptor.colorId(frame);
        long markSn = TopologyMarkDescriptor.markSn(frame);
        long seen = maxWatermark.getOrDefault(color, 0L);
        if (seen >= markSn) {
          world.fail(
              this
                  + " got the join mark "
                  + Sn.describe(markSn)
                  + " of color "
                  + color
                  + " after watermark "
                  + Sn.describe(seen));
        }
        marks++;
      }
      case MessageType.WELCOME -> {
        int incarnation = WelcomeDescriptor.incarnation(frame);
        if (WelcomeDescriptor.sequencerNodeId(frame) != leafNodeId) {
          world.fail(this + " got WELCOME from node " + WelcomeDescriptor.sequencerNodeId(frame));
        }
        if (incarnation < lastIncarnation) {
          world.fail(
              this + " got WELCOME of incarnation " + incarnation + " after " + lastIncarnation);
        }
        lastIncarnation = incarnation;
      }
      case MessageType.ERROR ->
          world.fail(
              this
                  + " got ERROR "
                  + ErrorDescriptor.code(frame)
                  + ": "
                  + ErrorDescriptor.message(frame));
      default -> world.fail(this + " got unexpected " + MessageType.name(type));
    }
  }

  private void onOrderResponse(ByteBuf frame) {
    int color = OrderResponseDescriptor.colorId(frame);
    if (OrderResponseDescriptor.shardId(frame) != shard.id()) {
      world.fail(this + " got a response for shard " + OrderResponseDescriptor.shardId(frame));
    }
    for (int i = 0; i < OrderResponseDescriptor.count(frame); i++) {
      TreeSimulation.TokenKey token =
          new TreeSimulation.TokenKey(
              OrderResponseDescriptor.tokenSession(frame, i),
              OrderResponseDescriptor.tokenSequence(frame, i));
      learn(token, color, OrderResponseDescriptor.sn(frame, i));
    }
  }

  private void learn(TreeSimulation.TokenKey token, int color, long sn) {
    world.checkAssignment(color, token, sn, conn.acceptor.id, conn.acceptorIncarnation);
    Entry entry = entries.computeIfAbsent(token, t -> new Entry(t, color));
    if (entry.colorId != color) {
      world.fail(this + " got an SN of color " + color + " for " + token + " of " + entry.colorId);
    }
    if (entry.sn == 0) {
      Long max = maxWatermark.get(color);
      Long first = firstWatermark.get(color);
      if (max != null && sn <= max && sn > first) {
        world.fail(
            String.format(
                "%s learned %s -> %s after watermark %s of color %d on %s (catch-up was %s)",
                this,
                token,
                Sn.describe(sn),
                Sn.describe(max),
                color,
                conn.describe(),
                Sn.describe(first)));
      }
      entry.sn = sn;
    }
    maxLearned.merge(color, sn, Math::max);
  }

  /**
   * At quiescence: this replica has a watermark of every color its shard serves, at least the last
   * SN the color issued (idle colors get a watermark after their last batch too).
   */
  void checkCaughtUp(io.flexlog.core.model.Topology topology, Map<Integer, Long> lastIssued) {
    for (io.flexlog.core.model.Color c = topology.color(shard.colorId()).orElseThrow();
        c != null;
        c = c.isRoot() ? null : topology.color(c.parentId()).orElseThrow()) {
      long last = lastIssued.getOrDefault(c.id(), 0L);
      Long watermark = maxWatermark.get(c.id());
      if (last > 0 && (watermark == null || watermark < last)) {
        world.fail(
            this
                + " has watermark "
                + (watermark == null ? "none" : Sn.describe(watermark))
                + " of color "
                + c.id()
                + ", which issued up to "
                + Sn.describe(last));
      }
    }
  }

  /** At quiescence: every color this replica learned SNs of has a watermark covering them. */
  void checkCovered() {
    maxLearned.forEach(
        (color, sn) -> {
          Long watermark = maxWatermark.get(color);
          if (watermark == null || watermark < sn) {
            world.fail(
                this
                    + " has SN "
                    + Sn.describe(sn)
                    + " of color "
                    + color
                    + " but its watermark is "
                    + (watermark == null ? "none" : Sn.describe(watermark)));
          }
        });
  }

  @Override
  public String toString() {
    return "replica " + nodeId + " of shard " + shard.id();
  }
}
