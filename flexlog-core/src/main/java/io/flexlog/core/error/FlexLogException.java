package io.flexlog.core.error;

/** Base of every error FlexLog reports to a user. Unchecked, as in Kafka's client. */
public class FlexLogException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public FlexLogException(String message) {
    super(message);
  }

  public FlexLogException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The error code this exception travels as, when it crosses the wire. */
  public ErrorCode code() {
    return ErrorCode.INTERNAL;
  }

  /** Maps an error received from a node to its typed exception. */
  public static FlexLogException fromWire(ErrorCode code, String message) {
    return switch (code) {
      case UNKNOWN_COLOR -> new UnknownColorException(message);
      case RECORD_TOO_LARGE -> new RecordTooLargeException(message);
      case STORAGE_FULL -> new StorageFullException(message);
      case NOT_READY -> new NotReadyException(message);
      case TRIMMED -> new TrimmedException(message);
      case PROTOCOL -> new ProtocolException(message);
      case INVALID_ARGUMENT -> new InvalidArgumentException(message);
      case COLOR_EXISTS -> new ColorExistsException(message);
      case NOT_ENOUGH_NODES -> new NotEnoughNodesException(message);
      case METADATA_UNAVAILABLE -> new MetadataUnavailableException(message);
      case GROUP_ABORTED -> new GroupAbortedException(message);
      case ATOMIC_OUTCOME_UNKNOWN -> new AtomicOutcomeUnknownException(message);
      case ATOMIC_MEMBER_FAILED -> new AtomicMemberFailedException(message);
      case UNKNOWN_SHARD, INTERNAL -> new FlexLogException(code + ": " + message);
    };
  }
}
