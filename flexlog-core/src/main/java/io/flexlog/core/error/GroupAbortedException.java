package io.flexlog.core.error;

/**
 * An atomic append definitely failed after its commit was sent: every replica of the broker shard
 * durably aborted the group, so none of its records will ever appear.
 */
public class GroupAbortedException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public GroupAbortedException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.GROUP_ABORTED;
  }
}
