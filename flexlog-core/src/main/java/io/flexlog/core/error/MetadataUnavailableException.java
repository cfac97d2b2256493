package io.flexlog.core.error;

/**
 * The cluster metadata cannot be read or changed now: the metadata quorum has no leader that a
 * majority of its nodes follows (docs/operations.md, "Metadata quorum"). Data-plane traffic is not
 * affected; retry once enough quorum nodes are back.
 */
public class MetadataUnavailableException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public MetadataUnavailableException(String message) {
    super(message);
  }

  public MetadataUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.METADATA_UNAVAILABLE;
  }
}
