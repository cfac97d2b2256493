package io.flexlog.server.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AlterColorDescriptor;
import io.flexlog.core.protocol.CreateColorDescriptor;
import io.flexlog.core.protocol.DescribeClusterDescriptor;
import io.flexlog.core.protocol.DescribeColorsDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.Frames;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.testing.FreePorts;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay between the data plane and the admin service: admin frames in, the service's answer or
 * its typed error out as frames, with admin services that cannot be reached skipped.
 */
class AdminFrameRelayTest {
  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  @TempDir Path dir;
  private ClusterController controller;
  private AdminServer server;
  private AdminFrameRelay relay;
  private HostPort closed;

  @BeforeEach
  void start() throws Exception {
    Topology initial = TestTopologies.twoLevel(3);
    MetadataStore store = new MetadataStore(dir);
    store.write(initial);
    controller = new ClusterController(initial, store, Duration.ofSeconds(5));
    server = AdminServer.start("127.0.0.1", 0, controller);
    closed = new HostPort("127.0.0.1", FreePorts.consecutive(1));
    // The first admin service is down: every call must skip it.
    relay =
        new AdminFrameRelay(
            List.of(
                new AdminFrameRelay.Target(1, closed),
                new AdminFrameRelay.Target(0, new HostPort("127.0.0.1", server.port()))),
            4096,
            Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    relay.close();
    server.close();
  }

  /** Relays {@code request} (released here) and returns the validated answer. */
  private ByteBuf relay(ByteBuf request) throws Exception {
    ByteBuf answer;
    try {
      answer = relay.relay(request).get(20, TimeUnit.SECONDS);
    } finally {
      request.release();
    }
    Frames.validate(answer);
    assertThat(FrameDescriptor.requestId(answer)).isEqualTo(77L);
    return answer;
  }

  private <T> T answer(ByteBuf request, byte type, Function<ByteBuf, T> decode) throws Exception {
    ByteBuf answer = relay(request);
    try {
      assertThat(MessageType.name(FrameDescriptor.type(answer)))
          .as(
              FrameDescriptor.type(answer) == MessageType.ERROR
                  ? ErrorDescriptor.message(answer)
                  : "")
          .isEqualTo(MessageType.name(type));
      return decode.apply(answer);
    } finally {
      answer.release();
    }
  }

  private record Error(ErrorCode code, String message) {}

  private Error error(ByteBuf request) throws Exception {
    return answer(
        request,
        MessageType.ERROR,
        f -> new Error(ErrorDescriptor.code(f), ErrorDescriptor.message(f)));
  }

  private static ByteBuf create(String name, String parent, int shards, int replicas) {
    return CreateColorDescriptor.encodeRequest(
        ALLOC,
        77L,
        new CreateColorDescriptor.Request(
            name, parent, shards, replicas, CreateColorDescriptor.PARENTS_SEQUENCER));
  }

  @Test
  void shouldCreateAColorThroughTheFirstServiceThatAnswers() throws Exception {
    CreateColorDescriptor.Response created =
        answer(
            create("orders", "global", 2, 3),
            MessageType.CREATE_COLOR_RESPONSE,
            CreateColorDescriptor::decodeResponse);
    CreateColorDescriptor.Response again =
        answer(
            create("orders", "global", 2, 3),
            MessageType.CREATE_COLOR_RESPONSE,
            CreateColorDescriptor::decodeResponse);

    assertThat(created.created()).isTrue();
    assertThat(created.color().name()).isEqualTo("orders");
    assertThat(created.color().parent()).isEqualTo("global");
    assertThat(created.color().shardIds()).hasSize(2);
    assertThat(created.color().replicationFactor()).isEqualTo(3);
    assertThat(created.topologyVersion()).isEqualTo(controller.topology().version());
    assertThat(again.created()).isFalse();
    assertThat(again.color()).isEqualTo(created.color());
  }

  @Test
  void shouldPassTheServicesTypedErrorsOnWithTheirCodes() throws Exception {
    answer(
        create("orders", "global", 1, 3),
        MessageType.CREATE_COLOR_RESPONSE,
        CreateColorDescriptor::decodeResponse);

    Error exists = error(create("orders", "global", 2, 3));
    Error unknownParent = error(create("eu", "nope", 1, 3));
    Error badName = error(create("bad name", "global", 1, 3));
    Error tooManyReplicas = error(create("wide", "global", 1, 4));
    Error badShards = error(create("many", "global", 1000, 3));

    assertThat(exists.code()).isEqualTo(ErrorCode.COLOR_EXISTS);
    assertThat(exists.message()).contains("'orders' already exists");
    assertThat(unknownParent.code()).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(unknownParent.message()).contains("'nope'");
    assertThat(badName.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(badName.message()).contains("illegal color name 'bad name'");
    assertThat(tooManyReplicas.code()).isEqualTo(ErrorCode.NOT_ENOUGH_NODES);
    assertThat(badShards.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(badShards.message()).contains("shards must be in [1, 256]");
  }

  private static ByteBuf alter(String name, OptionalLong ms, OptionalLong bytes) {
    return AlterColorDescriptor.encodeRequest(
        ALLOC, 77L, new AlterColorDescriptor.Request(name, ms, bytes));
  }

  @Test
  void shouldCreateWithRetentionAndAlterItPassingTheServicesErrorsOn() throws Exception {
    CreateColorDescriptor.Response created =
        answer(
            CreateColorDescriptor.encodeRequest(
                ALLOC,
                77L,
                new CreateColorDescriptor.Request(
                    "kept", "global", 1, 3, CreateColorDescriptor.PARENTS_SEQUENCER, 60_000, -1)),
            MessageType.CREATE_COLOR_RESPONSE,
            CreateColorDescriptor::decodeResponse);
    AlterColorDescriptor.Response altered =
        answer(
            alter("kept", OptionalLong.empty(), OptionalLong.of(4096)),
            MessageType.ALTER_COLOR_RESPONSE,
            AlterColorDescriptor::decodeResponse);
    Error zero = error(alter("kept", OptionalLong.of(0), OptionalLong.empty()));
    Error unknown = error(alter("nope", OptionalLong.of(1000), OptionalLong.empty()));

    assertThat(created.color().retentionMs()).isEqualTo(60_000);
    assertThat(created.color().retentionBytes()).isEqualTo(-1);
    assertThat(altered.changed()).isTrue();
    assertThat(altered.color().retentionMs()).isEqualTo(60_000);
    assertThat(altered.color().retentionBytes()).isEqualTo(4096);
    assertThat(altered.topologyVersion()).isEqualTo(controller.topology().version());
    assertThat(controller.topology().color("kept").orElseThrow().retention())
        .isEqualTo(new Retention(60_000, 4096));
    assertThat(zero.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(zero.message()).contains("retention.ms must be -1 (keep everything) or > 0, got 0");
    assertThat(unknown.code()).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(unknown.message()).contains("'nope'");
  }

  @Test
  void shouldDescribeOneColorEveryColorOrNameTheUnknownOne() throws Exception {
    DescribeColorsDescriptor.Response all =
        answer(
            DescribeColorsDescriptor.encodeRequest(ALLOC, 77L, ""),
            MessageType.DESCRIBE_COLORS_RESPONSE,
            DescribeColorsDescriptor::decodeResponse);
    DescribeColorsDescriptor.Response global =
        answer(
            DescribeColorsDescriptor.encodeRequest(ALLOC, 77L, "global"),
            MessageType.DESCRIBE_COLORS_RESPONSE,
            DescribeColorsDescriptor::decodeResponse);
    Error unknown = error(DescribeColorsDescriptor.encodeRequest(ALLOC, 77L, "nope"));

    assertThat(all.colors())
        .extracting(c -> c.name())
        .containsExactlyElementsOf(
            controller.topology().colors().stream().map(c -> c.name()).toList());
    assertThat(global.colors()).hasSize(1);
    assertThat(global.colors().get(0).name()).isEqualTo("global");
    assertThat(global.colors().get(0).parent()).isEmpty();
    assertThat(unknown.code()).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(unknown.message()).contains("unknown color 'nope'");
  }

  @Test
  void shouldDescribeTheClusterWithItsAdminServices() throws Exception {
    DescribeClusterDescriptor.Response cluster =
        answer(
            DescribeClusterDescriptor.encodeRequest(ALLOC, 77L),
            MessageType.DESCRIBE_CLUSTER_RESPONSE,
            DescribeClusterDescriptor::decodeResponse);

    assertThat(cluster.topology()).isEqualTo(controller.topology());
    assertThat(cluster.maxRecordBytes()).isEqualTo(4096);
    assertThat(cluster.adminServices())
        .containsExactly(
            new DescribeClusterDescriptor.AdminService(1, "127.0.0.1", closed.port()),
            new DescribeClusterDescriptor.AdminService(0, "127.0.0.1", server.port()));
  }

  @Test
  void shouldAnswerMetadataUnavailableNamingEveryServiceWhenNoneAnswers() throws Exception {
    HostPort alsoClosed = new HostPort("127.0.0.1", FreePorts.consecutive(1));
    try (AdminFrameRelay nowhere =
        new AdminFrameRelay(
            List.of(
                new AdminFrameRelay.Target(0, closed), new AdminFrameRelay.Target(1, alsoClosed)),
            4096,
            Duration.ofSeconds(5))) {
      for (ByteBuf request :
          List.of(
              DescribeClusterDescriptor.encodeRequest(ALLOC, 77L),
              alter("global", OptionalLong.of(1000), OptionalLong.empty()))) {
        ByteBuf answer;
        try {
          answer = nowhere.relay(request).get(20, TimeUnit.SECONDS);
        } finally {
          request.release();
        }
        try {
          assertThat(FrameDescriptor.type(answer)).isEqualTo(MessageType.ERROR);
          assertThat(ErrorDescriptor.code(answer)).isEqualTo(ErrorCode.METADATA_UNAVAILABLE);
          assertThat(ErrorDescriptor.message(answer))
              .contains("no admin service answered")
              .contains(closed.toString())
              .contains(alsoClosed.toString());
        } finally {
          answer.release();
        }
      }
    }
  }
}
