package io.flexlog.server.control;

/** A {@code host:port} address given on the command line or in a cluster file. */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /**
   * @throws IllegalArgumentException naming {@code what} when {@code value} is not host:port
   */
  public static HostPort parse(String what, String value) {
    int colon = value == null ? -1 : value.lastIndexOf(':');
    if (colon <= 0 || colon == value.length() - 1) {
      throw new IllegalArgumentException(what + ": '" + value + "' is not host:port");
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + ": '" + value + "' has no numeric port");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(what + ": port of '" + value + "' is out of range");
    }
    return new HostPort(value.substring(0, colon), port);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
