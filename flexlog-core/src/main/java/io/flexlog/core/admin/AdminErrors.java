package io.flexlog.core.admin;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * How FlexLog errors cross the gRPC control plane: a gRPC status for generic tooling plus the
 * FlexLog {@link ErrorCode} name in the trailer {@value #CODE_KEY_NAME}, so that a client maps the
 * error to the same typed exception as on the data plane.
 */
public final class AdminErrors {
  public static final String CODE_KEY_NAME = "flexlog-error-code";
  public static final Metadata.Key<String> CODE_KEY =
      Metadata.Key.of(CODE_KEY_NAME, Metadata.ASCII_STRING_MARSHALLER);

  private AdminErrors() {}

  /** The gRPC status code a FlexLog error code travels as. */
  public static Status.Code statusCode(ErrorCode code) {
    return switch (code) {
      case UNKNOWN_COLOR, UNKNOWN_SHARD -> Status.Code.NOT_FOUND;
      case COLOR_EXISTS -> Status.Code.ALREADY_EXISTS;
      case NOT_ENOUGH_NODES, GROUP_ABORTED, ATOMIC_MEMBER_FAILED -> Status.Code.FAILED_PRECONDITION;
      case ATOMIC_OUTCOME_UNKNOWN -> Status.Code.UNKNOWN;
      case INVALID_ARGUMENT, RECORD_TOO_LARGE -> Status.Code.INVALID_ARGUMENT;
      case NOT_READY, METADATA_UNAVAILABLE -> Status.Code.UNAVAILABLE;
      case STORAGE_FULL -> Status.Code.RESOURCE_EXHAUSTED;
      case TRIMMED -> Status.Code.OUT_OF_RANGE;
      case PROTOCOL, INTERNAL -> Status.Code.INTERNAL;
    };
  }

  /** The gRPC form of {@code error}: its status, message and FlexLog code. */
  public static StatusRuntimeException toStatus(FlexLogException error) {
    Metadata trailers = new Metadata();
    trailers.put(CODE_KEY, error.code().name());
    return Status.fromCode(statusCode(error.code()))
        .withDescription(error.getMessage())
        .asRuntimeException(trailers);
  }

  /**
   * The typed exception for a failed call to the admin service at {@code target}: the FlexLog code
   * of the trailer when present, else a message built from the gRPC status.
   */
  public static FlexLogException fromStatus(StatusRuntimeException error, String target) {
    Status status = error.getStatus();
    Metadata trailers = error.getTrailers();
    String code = trailers == null ? null : trailers.get(CODE_KEY);
    if (code != null) {
      ErrorCode flexLogCode;
      try {
        flexLogCode = ErrorCode.valueOf(code);
      } catch (IllegalArgumentException e) {
        flexLogCode = ErrorCode.INTERNAL;
      }
      return FlexLogException.fromWire(flexLogCode, status.getDescription());
    }
    String detail = status.getDescription() == null ? "" : ": " + status.getDescription();
    return switch (status.getCode()) {
      case DEADLINE_EXCEEDED ->
          new FlexLogTimeoutException("admin service at " + target + " timed out" + detail);
      case UNAVAILABLE ->
          new FlexLogException("admin service at " + target + " is unreachable" + detail, error);
      default ->
          new FlexLogException(
              "admin service at " + target + " failed with " + status.getCode() + detail, error);
    };
  }
}
