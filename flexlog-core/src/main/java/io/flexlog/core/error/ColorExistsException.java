package io.flexlog.core.error;

/** AddColor named a color that already exists with other settings (parent, shards, replicas). */
public class ColorExistsException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public ColorExistsException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.COLOR_EXISTS;
  }
}
