package io.flexlog.core.error;

/**
 * The outcome of an atomic append is unknown: its commit was sent, so some replica of the broker
 * shard may have written its END marker, and no replica answered with the SNs before the deadline
 * (or the answering replica forgot the group after its result retention). The group may still
 * appear, with all of its records or none. The message names the group id; read the target colors
 * to find out.
 */
public class AtomicOutcomeUnknownException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public AtomicOutcomeUnknownException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.ATOMIC_OUTCOME_UNKNOWN;
  }
}
