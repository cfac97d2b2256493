package io.flexlog.server.cli;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.admin.v1.AlterColorResponse;
import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.client.AlterColorOptions;
import io.flexlog.client.AlterColorResult;
import io.flexlog.client.ColorDescription;
import io.flexlog.client.CreateColorResult;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.NewColor;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Retention;
import io.flexlog.server.control.AdminClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where the {@code colors} commands send their requests: by default to a node ({@code --bootstrap},
 * through {@link FlexLogAdmin}: the node relays them to the admin service), or with {@code --admin}
 * straight to an admin gRPC service. Both paths do the same: create, alter, list and describe
 * colors, retention included (docs/operations.md#retention).
 */
final class ColorsTarget {
  static final String DEFAULT_BOOTSTRAP = "127.0.0.1:7070";

  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      description =
          "host:port of any node, which relays the request to the admin service (default: "
              + DEFAULT_BOOTSTRAP
              + ").")
  String bootstrap;

  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      description =
          "host:port of an admin gRPC service to call directly instead of --bootstrap (the dev"
              + " cluster's is 127.0.0.1:7090).")
  String admin;

  @Option(
      names = "--timeout-ms",
      paramLabel = "MS",
      defaultValue = "10000",
      description = "Operation timeout in ms (default: ${DEFAULT-VALUE}).")
  long timeoutMs;

  /** The operations the commands need, over either path. */
  interface Session extends AutoCloseable {
    CreateColorResult createColor(NewColor color);

    AlterColorResult alterColor(String name, AlterColorOptions options);

    List<ColorDescription> listColors();

    ColorDescription describeColor(String name);

    @Override
    void close();
  }

  /**
   * @throws IllegalArgumentException when both targets are given, or the timeout is not positive
   */
  Session open() {
    if (timeoutMs <= 0) {
      throw new IllegalArgumentException("--timeout-ms must be > 0");
    }
    if (bootstrap != null && admin != null) {
      throw new IllegalArgumentException("give --bootstrap or --admin, not both");
    }
    Duration timeout = Duration.ofMillis(timeoutMs);
    if (admin != null) {
      return new GrpcSession(AdminClient.connect(admin, timeout));
    }
    FlexLogAdmin client =
        FlexLogAdmin.create(
            FlexLogConfig.builder()
                .bootstrapServers(bootstrap == null ? DEFAULT_BOOTSTRAP : bootstrap)
                .connectTimeout(timeout)
                .requestTimeout(Duration.ofMillis(Math.min(2000, timeoutMs)))
                .deliveryTimeout(timeout)
                .build());
    return new Session() {
      @Override
      public CreateColorResult createColor(NewColor color) {
        return client.createColor(color);
      }

      @Override
      public AlterColorResult alterColor(String name, AlterColorOptions options) {
        return client.alterColor(name, options);
      }

      @Override
      public List<ColorDescription> listColors() {
        return client.listColors();
      }

      @Override
      public ColorDescription describeColor(String name) {
        return client.describeColor(name);
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }

  /** The {@code --admin} path: the admin service's gRPC calls. */
  private record GrpcSession(AdminClient client) implements Session {
    @Override
    public CreateColorResult createColor(NewColor color) {
      AddColorRequest.Builder request =
          AddColorRequest.newBuilder()
              .setName(color.name())
              .setParent(color.parent())
              .setShards(color.shards())
              .setReplicationFactor(color.replicationFactor());
      color.sequencerNodeId().ifPresent(request::setSequencerNodeId);
      if (color.retentionMs() != Retention.KEEP) {
        request.setRetentionMs(color.retentionMs());
      }
      if (color.retentionBytes() != Retention.KEEP) {
        request.setRetentionBytes(color.retentionBytes());
      }
      AddColorResponse response = client.addColor(request.build());
      return new CreateColorResult(
          description(response.getColor()),
          response.getCreated(),
          response.getTopologyVersion(),
          response.getUnacknowledgedNodeIdsList());
    }

    @Override
    public AlterColorResult alterColor(String name, AlterColorOptions options) {
      AlterColorRequest.Builder request = AlterColorRequest.newBuilder().setName(name);
      options.retentionMs().ifPresent(request::setRetentionMs);
      options.retentionBytes().ifPresent(request::setRetentionBytes);
      AlterColorResponse response = client.alterColor(request.build());
      return new AlterColorResult(
          description(response.getColor()),
          response.getChanged(),
          response.getTopologyVersion(),
          response.getUnacknowledgedNodeIdsList());
    }

    @Override
    public List<ColorDescription> listColors() {
      return client.listColors().getColorsList().stream().map(GrpcSession::description).toList();
    }

    @Override
    public ColorDescription describeColor(String name) {
      return listColors().stream()
          .filter(c -> c.name().equals(name))
          .findFirst()
          .orElseThrow(() -> new UnknownColorException("unknown color '" + name + "'"));
    }

    @Override
    public void close() {
      client.close();
    }

    private static ColorDescription description(ColorInfo color) {
      return new ColorDescription(
          color.getId(),
          color.getName(),
          color.getParent().isEmpty() ? Optional.empty() : Optional.of(color.getParent()),
          color.getSequencerNodeId(),
          color.getReplicationFactor(),
          color.getShardIdsList(),
          new Retention(
              color.hasRetentionMs() ? color.getRetentionMs() : Retention.KEEP,
              color.hasRetentionBytes() ? color.getRetentionBytes() : Retention.KEEP));
    }
  }
}
