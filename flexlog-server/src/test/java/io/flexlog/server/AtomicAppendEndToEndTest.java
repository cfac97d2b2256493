package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.core.error.AtomicOutcomeUnknownException;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.atomic.AtomicAppends;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atomic multi-color appends end to end, in one JVM over real sockets. Colors {@code left} and
 * {@code right} are children of {@code global}, each with a shard of its own (left on nodes 1-2,
 * right on nodes 2-3); {@code global}'s shard 0 on nodes 1-3 is the broker. The crash tests play a
 * client that speaks the raw protocol and stops at a chosen step.
 */
class AtomicAppendEndToEndTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final int LEFT = 1;
  private static final int RIGHT = 2;

  /** The abandon time of atomic groups in the cluster of a test method that has it. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  private @interface AbandonAfterMs {
    long value();
  }

  @TempDir Path data;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private DevCluster cluster;
  private FlexLog log;

  static Topology tree(int port) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, DevCluster.HOST, port));
    for (int i = 1; i <= 3; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, DevCluster.HOST, port + i));
    }
    return new Topology(
        1,
        nodes,
        List.of(
            new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(LEFT, "left", Color.GLOBAL_ID, 0),
            new Color(RIGHT, "right", Color.GLOBAL_ID, 0)),
        List.of(
            new Shard(0, Color.GLOBAL_ID, List.of(1, 2, 3)),
            new Shard(LEFT, LEFT, List.of(1, 2)),
            new Shard(RIGHT, RIGHT, List.of(2, 3))));
  }

  @BeforeEach
  void start(TestInfo test) throws Exception {
    int port = FreePorts.consecutive(4);
    DevCluster.Options options =
        new DevCluster.Options(
            data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20);
    Optional<AbandonAfterMs> abandon =
        test.getTestMethod().map(m -> m.getAnnotation(AbandonAfterMs.class));
    if (abandon.isPresent()) {
      options = options.withAtomicAbandonAfter(Duration.ofMillis(abandon.get().value()));
    }
    cluster =
        DevCluster.start(
            tree(port), options, registry, new PrintStream(new ByteArrayOutputStream()));
    log =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(cluster.bootstrap())
                .requestTimeout(Duration.ofMillis(500))
                .deliveryTimeout(PATIENCE)
                .readTimeout(Duration.ofSeconds(10))
                .build());
  }

  @AfterEach
  void stop() {
    if (log != null) {
      log.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(LogRecord record) {
    return new String(record.payload(), StandardCharsets.UTF_8);
  }

  /**
   * Every record of a color from SN 0, read by a subscription until a record with payload {@code
   * last} arrived. Appends {@code last} itself first, so the stream has an end to wait for.
   */
  private List<LogRecord> readUntilMarker(String color, String last) {
    log.append(color, bytes(last));
    List<LogRecord> records = new ArrayList<>();
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    try (RecordStream stream = log.subscribe(color, 0)) {
      while (System.nanoTime() < deadline) {
        LogRecord record = stream.poll(Duration.ofMillis(200));
        if (record == null) {
          continue;
        }
        records.add(record);
        if (text(record).equals(last)) {
          return records;
        }
      }
    }
    throw new AssertionError("no '" + last + "' in color " + color + " within " + PATIENCE);
  }

  @Test
  void shouldPlaceEveryRecordOfAnAtomicAppendExactlyOnceAtItsSn() {
    Map<String, List<byte[]>> group = new LinkedHashMap<>();
    group.put("left", List.of(bytes("l0"), bytes("l1")));
    group.put("right", List.of(bytes("r0")));
    group.put("global", List.of(bytes("g0")));

    Map<String, long[]> sns = log.appendAtomically(group);

    assertThat(sns.keySet()).containsExactly("left", "right", "global");
    assertThat(sns.get("left")).hasSize(2);
    assertThat(sns.get("left")[0]).isLessThan(sns.get("left")[1]);
    assertThat(text(log.read("left", sns.get("left")[0]).orElseThrow())).isEqualTo("l0");
    assertThat(text(log.read("left", sns.get("left")[1]).orElseThrow())).isEqualTo("l1");
    assertThat(text(log.read("right", sns.get("right")[0]).orElseThrow())).isEqualTo("r0");
    assertThat(text(log.read("global", sns.get("global")[0]).orElseThrow())).isEqualTo("g0");

    List<LogRecord> left = readUntilMarker("left", "end-left");
    assertThat(left)
        .extracting(AtomicAppendEndToEndTest::text)
        .containsExactly("l0", "l1", "end-left");
    assertThat(left.get(0).sn()).isEqualTo(sns.get("left")[0]);
    List<LogRecord> right = readUntilMarker("right", "end-right");
    assertThat(right).extracting(AtomicAppendEndToEndTest::text).containsExactly("r0", "end-right");
    List<LogRecord> global = readUntilMarker("global", "end-global");
    assertThat(global)
        .extracting(AtomicAppendEndToEndTest::text)
        .containsExactly("g0", "end-global");
  }

  private FlexLog client(Duration deliveryTimeout) {
    return FlexLog.connect(
        FlexLogConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .requestTimeout(Duration.ofMillis(300))
            .deliveryTimeout(deliveryTimeout)
            .readTimeout(Duration.ofSeconds(10))
            .build());
  }

  @Test
  void shouldReturnTheSnsWhenTheAnswersOfReplicasThatWroteEndAreLost() {
    AtomicInteger toLose = new AtomicInteger(3);
    cluster.replicas().forEach(r -> r.loseAtomicAnswersWhile(() -> toLose.getAndDecrement() > 0));
    Map<String, long[]> sns;
    try (FlexLog other = client(PATIENCE)) {
      sns =
          other.appendAtomically(
              Map.of("left", List.of(bytes("lost-l")), "right", List.of(bytes("lost-r"))));
    } finally {
      cluster.replicas().forEach(r -> r.loseAtomicAnswersWhile(() -> false));
    }

    assertThat(toLose.get()).as("answers were lost").isLessThanOrEqualTo(0);
    assertThat(text(log.read("left", sns.get("left")[0]).orElseThrow())).isEqualTo("lost-l");
    assertThat(text(log.read("right", sns.get("right")[0]).orElseThrow())).isEqualTo("lost-r");
    assertThat(readUntilMarker("left", "end-left"))
        .extracting(AtomicAppendEndToEndTest::text)
        .containsExactly("lost-l", "end-left");
  }

  @Test
  void shouldReportOutcomeUnknownAndNeverAFailureWhenEveryAnswerIsLost() throws Exception {
    cluster.replicas().forEach(r -> r.loseAtomicAnswersWhile(() -> true));
    try (FlexLog other = client(Duration.ofSeconds(3))) {
      assertThatThrownBy(
              () ->
                  other.appendAtomically(
                      Map.of("left", List.of(bytes("unk-l")), "right", List.of(bytes("unk-r")))))
          .isExactlyInstanceOf(AtomicOutcomeUnknownException.class)
          .hasMessageContaining("may still appear")
          .hasMessageMatching("(?s).*atomic group [0-9a-f]{32} .*");
    } finally {
      cluster.replicas().forEach(r -> r.loseAtomicAnswersWhile(() -> false));
    }

    assertThat(waitForPayload("left", "unk-l")).containsExactly("unk-l", "end-left");
    assertThat(waitForPayload("right", "unk-r")).containsExactly("unk-r", "end-right");
  }

  @Test
  void shouldRefuseInvalidAtomicAppendsBeforeStagingAnything() {
    assertThatThrownBy(() -> log.appendAtomically(Map.of()))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> log.appendAtomically(Map.of("nowhere", List.of(bytes("x")))))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("nowhere");
    byte[] big = new byte[log.maxRecordBytes() + 1];
    assertThatThrownBy(() -> log.appendAtomically(Map.of("left", List.of(bytes("ok"), big))))
        .isInstanceOf(RecordTooLargeException.class)
        .hasMessageContaining("record 1 of color 'left'");

    assertThat(readUntilMarker("left", "end"))
        .extracting(AtomicAppendEndToEndTest::text)
        .containsExactly("end");
  }

  @Test
  @AbandonAfterMs(300)
  void shouldPlaceNothingWhenTheClientCrashesAfterStaging() throws Exception {
    int[] broker = {1, 2, 3};
    try (RawClient raw = new RawClient()) {
      raw.stageEverywhere(broker, "crash-l", "crash-r");
      raw.close(); // the client "crashes": no COMMIT_GROUP

      // Every replica of the broker shard aborts the group durably once the abandon time passed;
      // from then on none of them writes END, so nothing of it can ever be placed.
      for (int node : broker) {
        awaitTrue(() -> abortedGroups(node) >= 1, "replica " + node + " aborted the group");
      }
      for (int node : broker) {
        raw.commitAt(node, 2); // the client is back, too late
        ByteBuf answer = raw.readFrame(node);
        try {
          assertThat(FrameDescriptor.type(answer)).isEqualTo(MessageType.ERROR);
          assertThat(ErrorDescriptor.code(answer)).isEqualTo(ErrorCode.GROUP_ABORTED);
        } finally {
          answer.release();
        }
      }
    }
    assertThat(abortedGroups(1) + abortedGroups(2) + abortedGroups(3)).isEqualTo(3);

    assertThat(readUntilMarker("left", "after-left"))
        .extracting(AtomicAppendEndToEndTest::text)
        .containsExactly("after-left");
    assertThat(readUntilMarker("right", "after-right"))
        .extracting(AtomicAppendEndToEndTest::text)
        .containsExactly("after-right");
  }

  @Test
  void shouldPlaceEveryRecordWhenTheCommitReachedOnlyOneReplicaBeforeTheClientCrashed()
      throws Exception {
    try (RawClient raw = new RawClient()) {
      raw.stageEverywhere(new int[] {1, 2, 3}, "one-l", "one-r");
      raw.commitAt(3, 2);
    } // the client "crashes" before any answer, and never told replicas 1 and 2 to commit

    List<String> left = waitForPayload("left", "one-l");
    List<String> right = waitForPayload("right", "one-r");
    assertThat(left).containsExactly("one-l", "end-left");
    assertThat(right).containsExactly("one-r", "end-right");
  }

  private double abortedGroups(int node) {
    return registry
        .get(AtomicAppends.GROUPS_ABORTED_METRIC)
        .tag("node", Integer.toString(node))
        .counter()
        .count();
  }

  private static void awaitTrue(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + PATIENCE + " waiting until " + what);
      }
      Thread.sleep(10);
    }
  }

  /**
   * Reads the color until {@code payload} appeared (forwarding is asynchronous), then all of it.
   */
  private List<String> waitForPayload(String color, String payload) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (System.nanoTime() < deadline) {
      List<String> seen =
          readUntilMarker(color, "probe-" + ThreadLocalRandom.current().nextLong()).stream()
              .map(AtomicAppendEndToEndTest::text)
              .filter(s -> !s.startsWith("probe-"))
              .toList();
      if (seen.contains(payload)) {
        List<String> all = new ArrayList<>(seen);
        all.add(
            readUntilMarker(color, "end-" + color).stream()
                .map(AtomicAppendEndToEndTest::text)
                .filter(s -> s.startsWith("end-"))
                .findFirst()
                .orElseThrow());
        return all;
      }
      Thread.sleep(100);
    }
    throw new AssertionError(payload + " never appeared in " + color);
  }

  @Test
  void shouldKeepPerColorSnOrderUnderConcurrentAtomicAndPlainAppends() throws Exception {
    Map<Long, String> ackedLeft = new ConcurrentHashMap<>();
    Map<Long, String> ackedRight = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int thread = t;
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    String l = "atomic-" + thread + "-" + i + "-l";
                    String r = "atomic-" + thread + "-" + i + "-r";
                    Map<String, long[]> sns =
                        log.appendAtomically(
                            Map.of("left", List.of(bytes(l)), "right", List.of(bytes(r))));
                    ackedLeft.put(sns.get("left")[0], l);
                    ackedRight.put(sns.get("right")[0], r);
                  }
                }));
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    String l = "plain-" + thread + "-" + i;
                    ackedLeft.put(log.append("left", bytes(l)), l);
                  }
                }));
      }
      for (Future<?> f : work) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    for (Map.Entry<String, Map<Long, String>> color :
        Map.of("left", ackedLeft, "right", ackedRight).entrySet()) {
      List<LogRecord> records = readUntilMarker(color.getKey(), "end");
      records = records.subList(0, records.size() - 1);
      List<Long> sns = records.stream().map(LogRecord::sn).toList();
      assertThat(sns).isSorted().doesNotHaveDuplicates();
      Map<Long, String> seen = new LinkedHashMap<>();
      records.forEach(r -> seen.put(r.sn(), text(r)));
      assertThat(seen).isEqualTo(new java.util.TreeMap<>(color.getValue()));
    }
  }

  /** A client speaking the raw protocol to the broker shard's replicas, to stop at any step. */
  private final class RawClient implements AutoCloseable {
    private final long session = ThreadLocalRandom.current().nextLong();
    private final long groupLow = ThreadLocalRandom.current().nextLong();
    private final Map<Integer, Socket> sockets = new LinkedHashMap<>();

    private Socket socket(int node) throws IOException {
      Socket socket = sockets.get(node);
      if (socket == null) {
        NodeAddress address = cluster.topology().node(node);
        socket = new Socket(address.host(), address.port());
        socket.setSoTimeout((int) PATIENCE.toMillis());
        sockets.put(node, socket);
      }
      return socket;
    }

    /** Stages "left" and "right" members on each replica and waits for both acks from each. */
    void stageEverywhere(int[] replicas, String leftPayload, String rightPayload)
        throws IOException {
      for (int node : replicas) {
        send(node, stage(0, LEFT, LEFT, 1, leftPayload));
        send(node, stage(1, RIGHT, RIGHT, 2, rightPayload));
        assertThat(readType(node)).isEqualTo(MessageType.STAGE_ACK);
        assertThat(readType(node)).isEqualTo(MessageType.STAGE_ACK);
      }
    }

    void commitAt(int node, int count) throws IOException {
      send(
          node,
          CommitGroupDescriptor.encode(
              UnpooledByteBufAllocator.DEFAULT, 9, session, groupLow, 0, count));
    }

    private ByteBuf stage(int index, int color, int shard, long sequence, String payload) {
      byte[] body = bytes(payload);
      ByteBuf header =
          StageDescriptor.encodeHeader(
              UnpooledByteBufAllocator.DEFAULT,
              7,
              session,
              groupLow,
              index,
              2,
              0,
              color,
              shard,
              session,
              sequence,
              body.length);
      return Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(body));
    }

    private void send(int node, ByteBuf frame) throws IOException {
      try {
        OutputStream out = socket(node).getOutputStream();
        out.write(ByteBufUtil.getBytes(frame));
        out.flush();
      } finally {
        frame.release();
      }
    }

    private byte readType(int node) throws IOException {
      ByteBuf frame = readFrame(node);
      try {
        return FrameDescriptor.type(frame);
      } finally {
        frame.release();
      }
    }

    /** The next whole frame from {@code node}, length prefix included. */
    ByteBuf readFrame(int node) throws IOException {
      DataInputStream in = new DataInputStream(socket(node).getInputStream());
      int length = in.readInt();
      ByteBuf frame = Unpooled.buffer(4 + length);
      frame.writeInt(length);
      frame.writeBytes(in, length);
      return frame;
    }

    /** Closes every connection; a later call opens new ones (the same client, restarted). */
    @Override
    public void close() throws IOException {
      for (Socket socket : sockets.values()) {
        socket.close();
      }
      sockets.clear();
    }
  }
}
