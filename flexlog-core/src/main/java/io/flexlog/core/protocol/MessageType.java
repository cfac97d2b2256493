package io.flexlog.core.protocol;

/** Frame type codes. Values are part of the wire format: never renumber. */
public final class MessageType {
  /** Client to replica: store a record (see {@link AppendDescriptor}). */
  public static final byte APPEND = 1;

  /** Replica to client: the record is committed at an SN. */
  public static final byte APPEND_ACK = 2;

  /** Replica to sequencer: assign SNs to a batch of tokens. */
  public static final byte ORDER_REQUEST = 3;

  /** Sequencer to replica: the SNs of a batch of tokens. */
  public static final byte ORDER_RESPONSE = 4;

  /** Sequencer to replica: every SN up to the watermark is assigned. */
  public static final byte WATERMARK = 5;

  public static final byte READ = 6;
  public static final byte READ_RESPONSE = 7;

  /** Any node to its peer: a request failed. */
  public static final byte ERROR = 8;

  public static final byte METADATA_REQUEST = 9;
  public static final byte METADATA_RESPONSE = 10;

  /** Replica to sequencer, first frame: which replica node and shards this connection serves. */
  public static final byte HELLO = 11;

  // Sequencer to sequencer (codes 20-29): the sequencer tree
  // (docs/architecture.md#ordering-in-the-sequencer-tree).

  /** Child sequencer to parent, first frame: which node and incarnation this connection serves. */
  public static final byte SEQUENCER_HELLO = 20;

  /** Child sequencer to parent: assign a range of SNs (see {@link RangeRequestDescriptor}). */
  public static final byte RANGE_REQUEST = 21;

  /** Parent sequencer to child: the range assigned to a RANGE_REQUEST. */
  public static final byte RANGE_RESPONSE = 22;

  /** Parent sequencer to child: a watermark descending one edge of the color tree. */
  public static final byte TREE_WATERMARK = 23;

  /** Sequencer to replica: the HELLO is accepted; the sequencer process's incarnation. */
  public static final byte WELCOME = 24;

  // Codes 12-19: subscriptions (docs/architecture.md#subscribe). The subscription id travels as the
  // request id.

  /** Client to replica: stream the committed records of a color on one shard. */
  public static final byte SUBSCRIBE = 12;

  /** Replica to client: a batch of a subscription's records, in SN order, and its progress. */
  public static final byte SUBSCRIBE_RECORDS = 13;

  /** Replica to client: a subscription's progress moved without new records. */
  public static final byte SUBSCRIBE_PROGRESS = 14;

  /** Client to replica: the subscriber may receive this many more bytes. */
  public static final byte SUBSCRIBE_CREDIT = 15;

  /** Client to replica: end a subscription. */
  public static final byte UNSUBSCRIBE = 16;

  /**
   * Sequencer to replica, parent sequencer to child, replica to subscriber: a color's subtree
   * gained shards from an SN on (see {@link TopologyMarkDescriptor}).
   */
  public static final byte TOPOLOGY_MARK = 17;

  // Codes 30-39: atomic multi-color appends (docs/architecture.md#atomic-multi-color-append).

  /** Client to every replica of the broker shard: store one member of an atomic group. */
  public static final byte STAGE = 30;

  /** Replica to client: a member is staged durably. */
  public static final byte STAGE_ACK = 31;

  /** Client to replicas of the broker shard: every member is staged; forward them all. */
  public static final byte COMMIT_GROUP = 32;

  /** Replica to client: every member of the group is committed; their SNs. */
  public static final byte GROUP_RESULT = 33;

  // Codes 40-49: trim (docs/architecture.md#trim).

  /** Client to every replica of a color's subtree: drop the color's records up to an SN. */
  public static final byte TRIM = 40;

  /** Replica to client: the trim point is durable; the new trim point and the tail. */
  public static final byte TRIM_RESPONSE = 41;

  // Codes 50-59: replica to replica synchronisation (docs/architecture.md#token-sync).

  /** Replica to a peer replica of the same shard: which of these tokens have an SN there? */
  public static final byte TOKEN_SYNC = 50;

  /** Peer replica to the asker: the SN of each token of a TOKEN_SYNC, or none. */
  public static final byte TOKEN_SYNC_RESPONSE = 51;

  /** Replica to a peer replica: its committed records of a color on a shard in an SN range. */
  public static final byte SYNC_FETCH = 52;

  /** Peer replica to the asker: a batch of the records a SYNC_FETCH asked for. */
  public static final byte SYNC_ENTRIES = 53;

  // Codes 60-69: batched appends (docs/architecture.md#batched-append).

  /** Client to every replica of a shard: store several records of one color, each its own token. */
  public static final byte APPEND_BATCH = 60;

  /** Replica to client: the outcome (SN or error code) of some records of an APPEND_BATCH. */
  public static final byte APPEND_BATCH_ACK = 61;

  // Codes 80-89: operating a cluster (docs/architecture.md#head-and-tail).

  /**
   * Client to a color's sequencer node (its tail: the last SN its role issued) or to a replica (its
   * trim point and the tail it knows).
   */
  public static final byte TAIL_REQUEST = 80;

  /** Answer to TAIL_REQUEST: the color's trim point and tail as the answering node knows them. */
  public static final byte TAIL_RESPONSE = 81;

  // Codes 90-99: administration on the data plane, relayed by any node to the admin service
  // (docs/architecture.md#admin-requests-on-the-data-plane).

  /** Client to any node: create a color (the admin service's AddColor). */
  public static final byte CREATE_COLOR = 90;

  /** Answer to CREATE_COLOR: the color, whether it is new, the topology version holding it. */
  public static final byte CREATE_COLOR_RESPONSE = 91;

  /** Client to any node: describe one color, or every color. */
  public static final byte DESCRIBE_COLORS = 92;

  /** Answer to DESCRIBE_COLORS. */
  public static final byte DESCRIBE_COLORS_RESPONSE = 93;

  /** Client to any node: describe the cluster (nodes, colors, shards, admin services). */
  public static final byte DESCRIBE_CLUSTER = 94;

  /** Answer to DESCRIBE_CLUSTER. */
  public static final byte DESCRIBE_CLUSTER_RESPONSE = 95;

  /** Client to any node: change a color's retention (the admin service's AlterColor). */
  public static final byte ALTER_COLOR = 96;

  /** Answer to ALTER_COLOR: the color with its new settings, whether they changed. */
  public static final byte ALTER_COLOR_RESPONSE = 97;

  /**
   * Client to a replica node: its storage per tier and its colors (trim point, tail, records,
   * retention). Answered by the replica itself, not relayed
   * (docs/protocol.md#replica_status-and-replica_status_response).
   */
  public static final byte REPLICA_STATUS = 98;

  /** Answer to REPLICA_STATUS. */
  public static final byte REPLICA_STATUS_RESPONSE = 99;

  private MessageType() {}

  /** True for the admin requests a node relays to the admin service (CREATE_COLOR, ...). */
  public static boolean isAdminRequest(byte type) {
    return type == CREATE_COLOR
        || type == DESCRIBE_COLORS
        || type == DESCRIBE_CLUSTER
        || type == ALTER_COLOR;
  }

  public static String name(byte type) {
    return switch (type) {
      case APPEND -> "APPEND";
      case APPEND_ACK -> "APPEND_ACK";
      case ORDER_REQUEST -> "ORDER_REQUEST";
      case ORDER_RESPONSE -> "ORDER_RESPONSE";
      case WATERMARK -> "WATERMARK";
      case READ -> "READ";
      case READ_RESPONSE -> "READ_RESPONSE";
      case ERROR -> "ERROR";
      case METADATA_REQUEST -> "METADATA_REQUEST";
      case METADATA_RESPONSE -> "METADATA_RESPONSE";
      case HELLO -> "HELLO";
      case SEQUENCER_HELLO -> "SEQUENCER_HELLO";
      case RANGE_REQUEST -> "RANGE_REQUEST";
      case RANGE_RESPONSE -> "RANGE_RESPONSE";
      case TREE_WATERMARK -> "TREE_WATERMARK";
      case WELCOME -> "WELCOME";
      case SUBSCRIBE -> "SUBSCRIBE";
      case SUBSCRIBE_RECORDS -> "SUBSCRIBE_RECORDS";
      case SUBSCRIBE_PROGRESS -> "SUBSCRIBE_PROGRESS";
      case SUBSCRIBE_CREDIT -> "SUBSCRIBE_CREDIT";
      case UNSUBSCRIBE -> "UNSUBSCRIBE";
      case TOPOLOGY_MARK -> "TOPOLOGY_MARK";
      case STAGE -> "STAGE";
      case STAGE_ACK -> "STAGE_ACK";
      case COMMIT_GROUP -> "COMMIT_GROUP";
      case GROUP_RESULT -> "GROUP_RESULT";
      case TRIM -> "TRIM";
      case TRIM_RESPONSE -> "TRIM_RESPONSE";
      case TOKEN_SYNC -> "TOKEN_SYNC";
      case TOKEN_SYNC_RESPONSE -> "TOKEN_SYNC_RESPONSE";
      case SYNC_FETCH -> "SYNC_FETCH";
      case SYNC_ENTRIES -> "SYNC_ENTRIES";
      case APPEND_BATCH -> "APPEND_BATCH";
      case APPEND_BATCH_ACK -> "APPEND_BATCH_ACK";
      case TAIL_REQUEST -> "TAIL_REQUEST";
      case TAIL_RESPONSE -> "TAIL_RESPONSE";
      case CREATE_COLOR -> "CREATE_COLOR";
      case CREATE_COLOR_RESPONSE -> "CREATE_COLOR_RESPONSE";
      case DESCRIBE_COLORS -> "DESCRIBE_COLORS";
      case DESCRIBE_COLORS_RESPONSE -> "DESCRIBE_COLORS_RESPONSE";
      case DESCRIBE_CLUSTER -> "DESCRIBE_CLUSTER";
      case DESCRIBE_CLUSTER_RESPONSE -> "DESCRIBE_CLUSTER_RESPONSE";
      case ALTER_COLOR -> "ALTER_COLOR";
      case ALTER_COLOR_RESPONSE -> "ALTER_COLOR_RESPONSE";
      case REPLICA_STATUS -> "REPLICA_STATUS";
      case REPLICA_STATUS_RESPONSE -> "REPLICA_STATUS_RESPONSE";
      default -> "UNKNOWN(" + type + ")";
    };
  }
}
