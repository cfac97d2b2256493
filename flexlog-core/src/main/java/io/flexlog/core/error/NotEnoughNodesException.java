package io.flexlog.core.error;

/** The cluster has too few nodes of a kind for the request, e.g. replica nodes for AddColor. */
public class NotEnoughNodesException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public NotEnoughNodesException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.NOT_ENOUGH_NODES;
  }
}
