package io.flexlog.core.error;

/**
 * An atomic append was committed, but forwarding one or more of its members failed permanently (the
 * target color or shard left the topology after staging, or the target refused the record for
 * good). The other members were placed. The message names each failed member and its error code.
 */
public class AtomicMemberFailedException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public AtomicMemberFailedException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.ATOMIC_MEMBER_FAILED;
  }
}
