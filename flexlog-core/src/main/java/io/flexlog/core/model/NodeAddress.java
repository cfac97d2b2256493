package io.flexlog.core.model;

/** A FlexLog node: its cluster-wide id and where its data-plane port listens. */
public record NodeAddress(int id, Kind kind, String host, int port) {
  public enum Kind {
    SEQUENCER,
    REPLICA
  }

  public NodeAddress {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range for node " + id + ": " + port);
    }
  }

  public String hostPort() {
    return host + ":" + port;
  }
}
