package io.flexlog.testcontainers;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A FlexLog dev cluster in a container, in the manner of Testcontainers' {@code KafkaContainer}:
 * the image runs {@code flexlog dev} (one sequencer and one shard of three replicas, or with {@link
 * #withTreeLayout()} the sequencer tree of {@code dev --tree}) and the container counts as started
 * once the cluster prints its ready line.
 *
 * <pre>{@code
 * @Container
 * static FlexLogContainer flexlog = new FlexLogContainer("flexlog:0.1.0-SNAPSHOT");
 *
 * try (FlexLog log = FlexLog.connect(flexlog.getBootstrapServers())) { ... }
 * }</pre>
 *
 * <p>The container uses host networking: the dev cluster listens on 127.0.0.1 and clients connect
 * to every node at the address the topology gives, so no port is published through a bridge. The
 * ports are a block of free consecutive ports on the host, chosen at start (node {@code i} on
 * {@link #getBootstrapPort()} + {@code i}, then the admin service). If the container fails to
 * start, Testcontainers logs its output. Building the image, and what a test run needs (no Ryuk, no
 * start-up checks), is in docs/testing.md#container-tests.
 */
public class FlexLogContainer extends GenericContainer<FlexLogContainer> {
  /** The repository name of FlexLog images ({@code docker/build-image.sh} tags {@code flexlog}). */
  public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("flexlog");

  /** The line {@code flexlog dev} prints once every node serves. */
  public static final String READY_LINE = "FlexLog dev cluster ready: ";

  /** Where the image keeps its data (its volume); the dev cluster writes under {@code dev/}. */
  public static final String DATA_DIR = "/var/lib/flexlog";

  private static final String HOST = "127.0.0.1";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);
  // Docker's rule for volume names.
  private static final Pattern VOLUME_NAME = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]+");

  /** The shapes of {@code flexlog dev} (docs/operations.md, "A local cluster in one process"). */
  public enum Layout {
    /** Sequencer node 0 hosting {@code global}, replica nodes 1-3 holding its one shard. */
    FLAT(4, List.of("global")),
    /**
     * Root sequencer node 0 ({@code global}), leaf sequencer nodes 1 ({@code left}) and 2 ({@code
     * right}), replica nodes 3-8 holding two shards of three replicas per leaf.
     */
    TREE(9, List.of("global", "left", "right"));

    private final int nodes;
    private final List<String> colors;

    Layout(int nodes, List<String> colors) {
      this.nodes = nodes;
      this.colors = colors;
    }

    /** Nodes of the layout, each on a port of its own. */
    public int nodes() {
      return nodes;
    }

    /** The colors the layout starts with, root first. */
    public List<String> colors() {
      return colors;
    }
  }

  private Layout layout = Layout.FLAT;
  private String dataVolume;
  private int bootstrapPort;

  /**
   * @param dockerImageName a FlexLog image, such as {@code flexlog:0.1.0-SNAPSHOT}
   * @throws IllegalStateException when the image is not a {@code flexlog} image (use {@link
   *     DockerImageName#asCompatibleSubstituteFor} for a mirror of it)
   */
  public FlexLogContainer(String dockerImageName) {
    this(DockerImageName.parse(dockerImageName));
  }

  /**
   * @param dockerImageName a FlexLog image
   * @throws IllegalStateException when the image is not compatible with {@link #DEFAULT_IMAGE_NAME}
   */
  public FlexLogContainer(DockerImageName dockerImageName) {
    super(dockerImageName);
    dockerImageName.assertCompatibleWith(DEFAULT_IMAGE_NAME);
    withNetworkMode("host");
    withCreateContainerCmdModifier(this::bindDataVolume);
    waitingFor(
        Wait.forLogMessage("(?s).*" + Pattern.quote(READY_LINE) + ".*", 1)
            .withStartupTimeout(STARTUP_TIMEOUT));
  }

  /** Runs the sequencer tree ({@code flexlog dev --tree}) instead of the flat layout. */
  public FlexLogContainer withTreeLayout() {
    return withLayout(Layout.TREE);
  }

  /** The layout of the dev cluster (default {@link Layout#FLAT}). */
  public FlexLogContainer withLayout(Layout layout) {
    if (layout == null) {
      throw new IllegalArgumentException("layout must not be null");
    }
    this.layout = layout;
    return self();
  }

  /**
   * Keeps the data in the named Docker volume {@code name} (mounted at {@link #DATA_DIR}) instead
   * of a volume that is removed with the container, so that a later container on the same volume
   * finds every record and color. The volume outlives the container: remove it when done.
   *
   * @throws IllegalArgumentException when {@code name} is not a valid Docker volume name
   */
  public FlexLogContainer withDataVolume(String name) {
    if (name == null || !VOLUME_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "not a Docker volume name (letters, digits, '_', '.', '-'; at least two): " + name);
    }
    this.dataVolume = name;
    return self();
  }

  /** The layout the container runs. */
  public Layout getLayout() {
    return layout;
  }

  /**
   * The {@code bootstrap.servers} of a client: the root sequencer node's address on the host.
   *
   * @throws IllegalStateException before the container was started
   */
  public String getBootstrapServers() {
    return HOST + ":" + getBootstrapPort();
  }

  /**
   * The admin service's address (for {@code flexlog colors add|list --admin}, or gRPC).
   *
   * @throws IllegalStateException before the container was started
   */
  public String getAdminAddress() {
    return HOST + ":" + (getBootstrapPort() + layout.nodes());
  }

  /**
   * The root sequencer node's port; node {@code i} listens on this plus {@code i}.
   *
   * @throws IllegalStateException before the container was started
   */
  public int getBootstrapPort() {
    if (bootstrapPort == 0) {
      throw new IllegalStateException("the FlexLog container has not been started");
    }
    return bootstrapPort;
  }

  @Override
  protected void configure() {
    if (!"host".equals(getNetworkMode())) {
      throw new IllegalStateException(
          "FlexLogContainer needs host networking (the dev cluster listens on 127.0.0.1 and"
              + " advertises that address), got network mode "
              + getNetworkMode());
    }
    if (bootstrapPort == 0) {
      // One port per node, then the admin port; kept when the same container object restarts.
      bootstrapPort = HostPorts.freeBlock(HOST, layout.nodes() + 1);
    }
    setCommand(command().toArray(String[]::new));
  }

  /** Adds the data volume to the binds Testcontainers set up (file system binds, if any). */
  private void bindDataVolume(CreateContainerCmd cmd) {
    if (dataVolume == null) {
      return;
    }
    HostConfig hostConfig = cmd.getHostConfig();
    List<Bind> binds = new ArrayList<>();
    if (hostConfig.getBinds() != null) {
      binds.addAll(Arrays.asList(hostConfig.getBinds()));
    }
    binds.add(new Bind(dataVolume, new Volume(DATA_DIR)));
    hostConfig.withBinds(binds);
  }

  /** The {@code flexlog} command line the container runs. */
  List<String> command() {
    List<String> command = new ArrayList<>();
    command.add("dev");
    command.add("--port");
    command.add(Integer.toString(bootstrapPort));
    command.add("--admin-port");
    command.add(Integer.toString(bootstrapPort + layout.nodes()));
    command.add("--data");
    command.add(DATA_DIR + "/dev");
    // Small logs: a test cluster holds little, and the tree layout has six replicas.
    command.add("--pm-bytes");
    command.add("32MiB");
    command.add("--cache-bytes");
    command.add("8MiB");
    if (layout == Layout.TREE) {
      command.add("--tree");
    }
    return command;
  }
}
