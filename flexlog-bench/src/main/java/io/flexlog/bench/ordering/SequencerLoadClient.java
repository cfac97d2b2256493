package io.flexlog.bench.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One load client of the FlexLog ordering layer: it behaves like the replica of a shard towards the
 * sequencer node its shard is attached to (HELLO naming the shard, then ORDER_REQUEST batches,
 * reading ORDER_RESPONSE and WATERMARK on the same connection), without storing anything.
 *
 * <p>Closed loop: the client keeps {@code window} tokens outstanding. Tokens answered during one
 * event-loop read turn are replaced by one ORDER_REQUEST carrying as many new tokens when the turn
 * ends ({@code channelReadComplete}), the natural batching a replica does. Latency is from writing
 * a token to reading its ORDER_RESPONSE, taken once per frame.
 *
 * <p>Life: on connect it sends HELLO and one probe token and becomes ready when the probe is
 * answered (retrying after {@code NOT_READY} errors); {@link #start} opens the window. Any other
 * ERROR frame, a lost connection or an answer that breaks the protocol (unknown token, wrong color,
 * a watermark going back) fails the client and, through {@link LoadControl#fail}, the run.
 *
 * <p>Threading: every method except {@link #start}, {@link #snapshot}, {@link #close} and {@link
 * #ready} runs on the channel's event loop; those four hand their work to it. State is therefore
 * plain fields; per-token bookkeeping lives in primitive rings, so a steady load allocates only the
 * request frames.
 */
final class SequencerLoadClient extends ChannelInboundHandlerAdapter {
  private static final long PROBE_RETRY_MS = 20;

  private enum State {
    CONNECTING,
    PROBING,
    READY,
    RUNNING,
    DONE
  }

  private final SequencerTree.Attachment attachment;
  private final int window;
  private final long session;
  private final LoadControl control;
  private final SnObserver observer;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final ClientStats stats = new ClientStats();

  /** Ring indexed by {@code sequence & mask}: the token's sequence while outstanding, else 0. */
  private final long[] slotSequence;

  private final long[] slotIssueNs;
  private final boolean[] slotMeasured;
  private final int mask;

  private ChannelHandlerContext ctx;
  private State state = State.CONNECTING;
  private boolean closing;
  private long nextSequence = 1;
  private int outstanding;
  private int answeredThisTurn;
  private long lastWatermark = Long.MIN_VALUE;

  /**
   * @param session the token session id of this client; unique per client of a run
   */
  SequencerLoadClient(
      SequencerTree.Attachment attachment,
      int window,
      long session,
      LoadControl control,
      SnObserver observer) {
    this.attachment = attachment;
    this.window = window;
    this.session = session;
    this.control = control;
    this.observer = observer;
    int ring = Integer.highestOneBit(window * 2 - 1) << 1; // a power of two >= 2 * window
    this.slotSequence = new long[ring];
    this.slotIssueNs = new long[ring];
    this.slotMeasured = new boolean[ring];
    this.mask = ring - 1;
  }

  /** Completes when the probe token was answered; exceptionally when the client failed first. */
  CompletableFuture<Void> ready() {
    return ready;
  }

  /** Opens the window: issues {@code window} tokens. Called once, after {@link #ready}. */
  void start() {
    ctx.executor()
        .execute(
            () -> {
              if (state != State.READY) {
                return;
              }
              state = State.RUNNING;
              issue(window);
              ctx.flush();
            });
  }

  /** A private copy of the client's numbers, taken on its event loop. */
  Future<ClientStats> snapshot() {
    return ctx.executor().submit(stats::copy);
  }

  /** Closes the connection without counting it as a failure. */
  void close() {
    if (ctx == null) {
      return;
    }
    ctx.executor()
        .execute(
            () -> {
              closing = true;
              ctx.close();
            });
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.write(
        HelloDescriptor.encode(
            ctx.alloc(), attachment.replicaNodeId(), new int[] {attachment.shardId()}));
    probe();
  }

  private void probe() {
    if (state == State.DONE) {
      return;
    }
    state = State.PROBING;
    issue(1);
    ctx.flush();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      if (state != State.DONE) {
        dispatch(frame);
      }
    } finally {
      frame.release();
    }
  }

  private void dispatch(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    switch (type) {
      case MessageType.ORDER_RESPONSE -> onOrderResponse(frame);
      case MessageType.WATERMARK -> onWatermark(frame);
      case MessageType.WELCOME -> {} // the HELLO was accepted; nothing to sync for a load client
      case MessageType.ERROR -> onError(frame);
      default -> fail("unexpected " + MessageType.name(type) + " frame");
    }
  }

  private void onOrderResponse(ByteBuf frame) {
    int colorId = OrderResponseDescriptor.colorId(frame);
    int shardId = OrderResponseDescriptor.shardId(frame);
    if (colorId != attachment.requestColorId() || shardId != attachment.shardId()) {
      fail(
          "ORDER_RESPONSE for color "
              + colorId
              + " shard "
              + shardId
              + ", but this client asks for color "
              + attachment.requestColorId()
              + " of shard "
              + attachment.shardId());
      return;
    }
    long now = control.nanoTime();
    int count = OrderResponseDescriptor.count(frame);
    int measured = 0;
    for (int i = 0; i < count; i++) {
      long tokenSession = OrderResponseDescriptor.tokenSession(frame, i);
      long sequence = OrderResponseDescriptor.tokenSequence(frame, i);
      int slot = (int) (sequence & mask);
      if (tokenSession != session || slotSequence[slot] != sequence) {
        fail("ORDER_RESPONSE answers token " + tokenSession + "/" + sequence + ", not outstanding");
        return;
      }
      long sn = OrderResponseDescriptor.sn(frame, i);
      slotSequence[slot] = 0;
      boolean wasMeasured = slotMeasured[slot];
      stats.onAnswer(sn, wasMeasured, now - slotIssueNs[slot], now);
      observer.onSn(attachment.client(), sn);
      if (wasMeasured) {
        measured++;
      }
    }
    outstanding -= count;
    answeredThisTurn += count;
    control.onCompleted(count, measured);
  }

  private void onWatermark(ByteBuf frame) {
    if (WatermarkDescriptor.colorId(frame) != attachment.requestColorId()) {
      return; // watermarks of the other colors on the path are not this client's business
    }
    long watermark = WatermarkDescriptor.watermark(frame);
    if (watermark < lastWatermark) {
      fail("watermark of color " + attachment.requestColorId() + " went back to " + watermark);
      return;
    }
    lastWatermark = watermark;
  }

  private void onError(ByteBuf frame) {
    ErrorCode code = ErrorDescriptor.code(frame);
    if (state == State.PROBING && code == ErrorCode.NOT_READY) {
      forgetOutstanding(); // the probe was refused; ask again shortly
      ctx.executor().schedule(this::probe, PROBE_RETRY_MS, TimeUnit.MILLISECONDS);
      return;
    }
    fail(code + ": " + ErrorDescriptor.message(frame));
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (state == State.PROBING && outstanding == 0 && answeredThisTurn > 0) {
      answeredThisTurn = 0;
      state = State.READY;
      ready.complete(null);
      return;
    }
    if (state != State.RUNNING) {
      return;
    }
    if (control.mayIssue()) {
      if (answeredThisTurn > 0) {
        issue(answeredThisTurn);
        ctx.flush();
      }
    } else if (outstanding == 0) {
      done();
    }
    answeredThisTurn = 0;
  }

  /** Writes one ORDER_REQUEST with {@code count} new tokens; the caller flushes. */
  private void issue(int count) {
    boolean measured = control.isMeasuring();
    long now = control.nanoTime();
    for (int i = 0; i < count; i++) {
      if (slotSequence[(int) ((nextSequence + i) & mask)] != 0) {
        fail("more than " + slotSequence.length + " tokens outstanding: answers out of order");
        return;
      }
    }
    ByteBuf request =
        OrderRequestDescriptor.encodeHeader(
            ctx.alloc(),
            attachment.requestColorId(),
            attachment.shardId(),
            attachment.replicaNodeId(),
            count);
    for (int i = 0; i < count; i++) {
      long sequence = nextSequence++;
      int slot = (int) (sequence & mask);
      slotSequence[slot] = sequence;
      slotIssueNs[slot] = now;
      slotMeasured[slot] = measured;
      OrderRequestDescriptor.writeToken(request, session, sequence);
    }
    outstanding += count;
    ctx.write(request, ctx.voidPromise());
  }

  private void forgetOutstanding() {
    Arrays.fill(slotSequence, 0L);
    outstanding = 0;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!closing) {
      fail("the sequencer node closed the connection");
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    fail(cause.toString());
    ctx.close();
  }

  private void fail(String why) {
    if (state == State.DONE) {
      return;
    }
    String message =
        "client "
            + attachment.client()
            + " (shard "
            + attachment.shardId()
            + ") at sequencer node "
            + attachment.sequencerNodeId()
            + ": "
            + why;
    control.fail(message);
    ready.completeExceptionally(new IllegalStateException(message));
    done();
  }

  private void done() {
    state = State.DONE;
    control.onClientIdle();
  }
}
