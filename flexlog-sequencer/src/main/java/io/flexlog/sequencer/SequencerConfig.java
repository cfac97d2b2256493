package io.flexlog.sequencer;

import io.flexlog.core.net.ConnectionLimits;
import io.flexlog.core.protocol.FrameDescriptor;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The validated configuration of one sequencer node. Build it with {@link #builder()}; {@link
 * Builder#build()} checks every key once and throws {@link IllegalArgumentException} naming the
 * offending key, so a node never starts half-configured.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #NODE_ID}</td><td>required</td><td>this node's id in the topology; the node
 *       hosts every color whose sequencer id equals it</td></tr>
 *   <tr><td>{@value #HOST}</td><td>127.0.0.1</td><td>address the data-plane port binds to</td></tr>
 *   <tr><td>{@value #PORT}</td><td>0</td><td>data-plane port; 0 picks an ephemeral one</td></tr>
 *   <tr><td>{@value #DATA_DIR}</td><td>required</td><td>directory of the durable epoch file</td></tr>
 *   <tr><td>{@value #DEDUP_WINDOW}</td><td>1 &lt;&lt; 20</td><td>newest sequences of each client
 *       session remembered per color for deduplication (io.flexlog.core.util.TokenWindow)</td></tr>
 *   <tr><td>{@value #MAX_FRAME_BYTES}</td><td>64 MiB + frame header</td><td>largest inbound
 *       frame, length field included</td></tr>
 *   <tr><td>{@value #MAX_RECORD_BYTES}</td><td>1 MiB</td><td>record size limit announced to
 *       clients in METADATA_RESPONSE</td></tr>
 * </table>
 */
public final class SequencerConfig {
  public static final String NODE_ID = "sequencer.node.id";
  public static final String HOST = "sequencer.host";
  public static final String PORT = "sequencer.port";
  public static final String DATA_DIR = "sequencer.data.dir";
  public static final String DEDUP_WINDOW = "sequencer.dedup.window";
  public static final String MAX_FRAME_BYTES = "sequencer.max.frame.bytes";
  public static final String MAX_RECORD_BYTES = "sequencer.max.record.bytes";

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_DEDUP_WINDOW = 1 << 20;
  public static final int DEFAULT_MAX_FRAME_BYTES = (64 << 20) + FrameDescriptor.HEADER_LENGTH;
  public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;

  private final int nodeId;
  private final String host;
  private final int port;
  private final Path dataDir;
  private final int dedupWindow;
  private final int maxFrameBytes;
  private final int maxRecordBytes;
  private final ConnectionLimits connections;

  private SequencerConfig(Builder b) {
    this.connections =
        b.connections.withMaxFrameBytes(Math.min(b.connections.maxFrameBytes(), b.maxFrameBytes));
    this.nodeId = b.nodeId;
    this.host = b.host;
    this.port = b.port;
    this.dataDir = b.dataDir;
    this.dedupWindow = b.dedupWindow;
    this.maxFrameBytes = b.maxFrameBytes;
    this.maxRecordBytes = b.maxRecordBytes;
  }

  public static Builder builder() {
    return new Builder();
  }

  public int nodeId() {
    return nodeId;
  }

  public String host() {
    return host;
  }

  /**
   * The configured port; 0 means ephemeral (see {@link SequencerNode#port()} for the bound one).
   */
  public int port() {
    return port;
  }

  public Path dataDir() {
    return dataDir;
  }

  public int dedupWindow() {
    return dedupWindow;
  }

  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  public int maxRecordBytes() {
    return maxRecordBytes;
  }

  /** The limits on the data-plane port's connections; frames never above {@link #maxFrameBytes}. */
  public ConnectionLimits connections() {
    return connections;
  }

  @Override
  public String toString() {
    return NODE_ID
        + "="
        + nodeId
        + ", "
        + HOST
        + "="
        + host
        + ", "
        + PORT
        + "="
        + port
        + ", "
        + DATA_DIR
        + "="
        + dataDir
        + ", "
        + DEDUP_WINDOW
        + "="
        + dedupWindow
        + ", "
        + MAX_FRAME_BYTES
        + "="
        + maxFrameBytes
        + ", "
        + MAX_RECORD_BYTES
        + "="
        + maxRecordBytes;
  }

  /** Collects settings; not thread-safe. Unset optional keys keep their defaults. */
  public static final class Builder {
    private Integer nodeIdOrNull;
    private int nodeId;
    private String host = DEFAULT_HOST;
    private int port;
    private Path dataDir;
    private int dedupWindow = DEFAULT_DEDUP_WINDOW;
    private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
    private int maxRecordBytes = DEFAULT_MAX_RECORD_BYTES;
    private ConnectionLimits connections = ConnectionLimits.defaults();

    /** Idle and frame timeouts, frame bound and connection limit of the data-plane port. */
    public Builder connections(ConnectionLimits limits) {
      this.connections = Objects.requireNonNull(limits, "connections");
      return this;
    }

    private Builder() {}

    public Builder nodeId(int nodeId) {
      this.nodeIdOrNull = nodeId;
      return this;
    }

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    public Builder dedupWindow(int tokens) {
      this.dedupWindow = tokens;
      return this;
    }

    public Builder maxFrameBytes(int bytes) {
      this.maxFrameBytes = bytes;
      return this;
    }

    public Builder maxRecordBytes(int bytes) {
      this.maxRecordBytes = bytes;
      return this;
    }

    /**
     * Validates every key and returns the immutable config.
     *
     * @throws IllegalArgumentException naming the first invalid key and its value
     */
    public SequencerConfig build() {
      require(nodeIdOrNull != null, NODE_ID, "is required", null);
      nodeId = nodeIdOrNull;
      require(nodeId >= 0, NODE_ID, "must be >= 0", nodeId);
      require(host != null && !host.isBlank(), HOST, "must not be blank", host);
      require(port >= 0 && port <= 65535, PORT, "must be in [0, 65535]", port);
      require(dataDir != null, DATA_DIR, "is required", null);
      require(dedupWindow >= 1, DEDUP_WINDOW, "must be >= 1", dedupWindow);
      require(
          maxFrameBytes > FrameDescriptor.HEADER_LENGTH,
          MAX_FRAME_BYTES,
          "must be > " + FrameDescriptor.HEADER_LENGTH,
          maxFrameBytes);
      require(maxRecordBytes >= 1, MAX_RECORD_BYTES, "must be >= 1", maxRecordBytes);
      return new SequencerConfig(this);
    }

    private static void require(boolean ok, String key, String rule, Object value) {
      if (!ok) {
        throw new IllegalArgumentException(
            key + " " + rule + (value == null ? "" : ", got " + Objects.toString(value)));
      }
    }
  }
}
