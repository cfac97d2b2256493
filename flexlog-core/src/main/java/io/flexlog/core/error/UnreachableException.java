package io.flexlog.core.error;

/**
 * No node could be reached at all: every address tried refused the connection or could not be
 * connected to (no process listening, a wrong address, the client out of file descriptors), well
 * before any timeout. The message names each address and why; nothing was sent.
 */
public class UnreachableException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public UnreachableException(String message) {
    super(message);
  }
}
