package io.flexlog.client;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDecoder;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One in-process node playing bootstrap server and the only replica (node 1) of every shard, with a
 * topology and a set of known colors the test changes at will: enough to watch what the client
 * sends where and how it reacts to topology errors.
 */
final class FakeNode implements AutoCloseable {
  static final int FRESH = 1;

  private final EventLoopGroup group = Transport.eventLoops("fake-node", 1);
  private final Channel server;
  volatile Topology metadata;
  final Set<Integer> replicaColors = new CopyOnWriteArraySet<>();
  final List<int[]> appends = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger metadataRequests = new AtomicInteger();
  final AtomicInteger unknownAnswers = new AtomicInteger();
  private final AtomicLong sns = new AtomicLong(1L << 32);

  /** How STAGE is answered: STAGE_ACK while null, else an ERROR with this code. */
  volatile ErrorCode stageError;

  /**
   * How the next COMMIT_GROUPs are answered, one entry each: an {@link ErrorCode} (an ERROR), or
   * {@link #SILENT} (no answer), or {@link #CLOSE} (the connection is closed); GROUP_RESULT once
   * empty.
   */
  final java.util.Queue<Object> commitAnswers = new java.util.concurrent.ConcurrentLinkedQueue<>();

  static final Object SILENT = "silent";
  static final Object CLOSE = "close";
  final AtomicInteger commits = new AtomicInteger();

  /**
   * Subscriptions: the records each shard holds (of every color, for SUBSCRIBE), the progress every
   * stream reports, and which SUBSCRIBEs (counted per shard, from 1) the node answers once and then
   * never again: not even a heartbeat, like a replica behind a half-open connection.
   */
  final java.util.Map<Integer, long[]> shardRecords =
      new java.util.concurrent.ConcurrentHashMap<>();

  volatile long subscribeProgress;
  final Set<String> silentSubscribes = new CopyOnWriteArraySet<>();
  final List<long[]> subscribes = Collections.synchronizedList(new ArrayList<>());
  private final java.util.Map<Long, Channel> liveSubscriptions = new java.util.HashMap<>();
  private final java.util.Map<Long, Integer> subscriptionShards = new java.util.HashMap<>();

  FakeNode() throws InterruptedException {
    server =
        new ServerBootstrap()
            .group(group, group)
            .channel(Transport.serverChannel())
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new FrameDecoder(Transport.MAX_FRAME_BYTES), new Handler());
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
    metadata = topology(1, false);
    replicaColors.add(Color.GLOBAL_ID);
  }

  /** Sends a heartbeat (the progress again) on every live subscription every {@code periodMs}. */
  void heartbeatEvery(long periodMs) {
    group
        .next()
        .scheduleAtFixedRate(
            () -> {
              synchronized (liveSubscriptions) {
                liveSubscriptions.forEach(
                    (id, channel) ->
                        channel.writeAndFlush(
                            SubscribeProgressDescriptor.encode(
                                channel.alloc(),
                                id,
                                0,
                                subscriptionShards.get(id),
                                subscribeProgress)));
              }
            },
            periodMs,
            periodMs,
            TimeUnit.MILLISECONDS);
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  String bootstrap() {
    return "127.0.0.1:" + port();
  }

  /** Global with shards 10 and 11; with {@code fresh}, color 'fresh' (1) with shard 12. */
  Topology topology(long version, boolean fresh) {
    List<NodeAddress> nodes =
        List.of(
            new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", port()),
            new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", port()));
    List<Color> colors = new ArrayList<>(List.of(new Color(0, Color.GLOBAL, Color.NO_PARENT, 0)));
    List<Shard> shards =
        new ArrayList<>(List.of(new Shard(11, 0, List.of(1)), new Shard(10, 0, List.of(1))));
    if (fresh) {
      colors.add(new Color(FRESH, "fresh", 0, 0));
      shards.add(new Shard(12, FRESH, List.of(1)));
    }
    return new Topology(version, nodes, colors, shards);
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        long requestId = FrameDescriptor.requestId(frame);
        switch (FrameDescriptor.type(frame)) {
          case MessageType.METADATA_REQUEST -> {
            metadataRequests.incrementAndGet();
            ctx.writeAndFlush(
                MetadataDescriptor.encodeResponse(ctx.alloc(), requestId, metadata, 1 << 20));
          }
          case MessageType.APPEND -> {
            int color = AppendDescriptor.colorId(frame);
            if (!replicaColors.contains(color)) {
              unknown(ctx, requestId, color);
              return;
            }
            appends.add(new int[] {color, AppendDescriptor.shardId(frame)});
            ctx.writeAndFlush(
                AppendAckDescriptor.encode(
                    ctx.alloc(),
                    requestId,
                    AppendDescriptor.tokenSession(frame),
                    AppendDescriptor.tokenSequence(frame),
                    sns.incrementAndGet(),
                    color,
                    1));
          }
          case MessageType.READ -> {
            int color = ReadDescriptor.colorId(frame);
            if (!replicaColors.contains(color)) {
              unknown(ctx, requestId, color);
              return;
            }
            long sn = ReadDescriptor.sn(frame);
            ctx.writeAndFlush(
                ReadResponseDescriptor.encodeHeader(
                    ctx.alloc(), requestId, ReadResponseDescriptor.ABSENT, color, sn, sn, 0));
          }
          case MessageType.STAGE -> {
            if (stageError != null) {
              ctx.writeAndFlush(
                  ErrorDescriptor.encode(ctx.alloc(), requestId, stageError, "stage refused"));
              return;
            }
            ctx.writeAndFlush(
                StageAckDescriptor.encode(
                    ctx.alloc(),
                    requestId,
                    StageDescriptor.groupHigh(frame),
                    StageDescriptor.groupLow(frame),
                    StageDescriptor.memberIndex(frame),
                    1));
          }
          case MessageType.COMMIT_GROUP -> {
            commits.incrementAndGet();
            Object answer = commitAnswers.poll();
            if (answer == SILENT) {
              return;
            }
            if (answer == CLOSE) {
              ctx.close();
              return;
            }
            if (answer instanceof ErrorCode code) {
              ctx.writeAndFlush(
                  ErrorDescriptor.encode(ctx.alloc(), requestId, code, "commit: " + code));
              return;
            }
            long[] result = new long[CommitGroupDescriptor.memberCount(frame)];
            for (int i = 0; i < result.length; i++) {
              result[i] = sns.incrementAndGet();
            }
            ctx.writeAndFlush(
                GroupResultDescriptor.encode(
                    ctx.alloc(),
                    requestId,
                    CommitGroupDescriptor.groupHigh(frame),
                    CommitGroupDescriptor.groupLow(frame),
                    1,
                    result));
          }
          case MessageType.SUBSCRIBE -> onSubscribe(ctx, requestId, frame);
          case MessageType.SUBSCRIBE_CREDIT -> {}
          case MessageType.UNSUBSCRIBE -> {
            synchronized (liveSubscriptions) {
              liveSubscriptions.remove(requestId);
            }
          }
          default -> throw new AssertionError("unexpected " + FrameDescriptor.type(frame));
        }
      } finally {
        frame.release();
      }
    }

    // Streams the shard's records from the requested SN with the node's progress, in one frame.
    private void onSubscribe(ChannelHandlerContext ctx, long id, ByteBuf frame) {
      int shard = SubscribeDescriptor.shardId(frame);
      long fromSn = SubscribeDescriptor.fromSn(frame);
      long attempt;
      synchronized (subscribes) {
        subscribes.add(new long[] {shard, fromSn});
        attempt = subscribes.stream().filter(s -> s[0] == shard).count();
      }
      long[] held = shardRecords.getOrDefault(shard, new long[0]);
      long progress = subscribeProgress;
      long[] sending =
          java.util.Arrays.stream(held).filter(sn -> sn >= fromSn && sn <= progress).toArray();
      byte[][] payloads = new byte[sending.length][];
      int bytes = 0;
      for (int i = 0; i < sending.length; i++) {
        payloads[i] = ("sn" + sending[i]).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        bytes += payloads[i].length;
      }
      ByteBuf out =
          SubscribeRecordsDescriptor.encodeHeader(
              ctx.alloc(),
              id,
              SubscribeDescriptor.colorId(frame),
              shard,
              progress,
              sending.length,
              bytes,
              bytes);
      for (int i = 0; i < sending.length; i++) {
        SubscribeRecordsDescriptor.writeEntry(out, sending[i], payloads[i].length);
      }
      for (byte[] payload : payloads) {
        out.writeBytes(payload);
      }
      ctx.writeAndFlush(out);
      if (!silentSubscribes.contains(shard + "#" + attempt)) {
        synchronized (liveSubscriptions) {
          liveSubscriptions.put(id, ctx.channel());
          subscriptionShards.put(id, shard);
        }
      }
    }

    private void unknown(ChannelHandlerContext ctx, long requestId, int color) {
      unknownAnswers.incrementAndGet();
      ctx.writeAndFlush(
          ErrorDescriptor.encode(
              ctx.alloc(), requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + color));
    }
  }
}
