package io.flexlog.server.status;

import io.flexlog.core.model.TierUsage;
import io.flexlog.server.status.ClusterStatus.ColorStatus;
import io.flexlog.server.status.ClusterStatus.NodeStatus;
import io.flexlog.server.status.ClusterStatus.ReplicaStatus;
import io.flexlog.server.status.ClusterStatus.ShardStatus;

/** {@link ClusterStatus} as text for people and as one JSON object for tools. */
public final class StatusFormat {
  private StatusFormat() {}

  public static String text(ClusterStatus status) {
    StringBuilder out = new StringBuilder();
    out.append("topology version ").append(status.topologyVersion()).append('\n');
    out.append("nodes:\n");
    for (NodeStatus node : status.nodes()) {
      out.append(String.format("  %-3d %-9s %-21s ", node.id(), node.kind(), node.address()))
          .append(node.up() ? "up" : "DOWN");
      if (node.epoch() >= 0) {
        out.append(" epoch=").append(node.epoch());
      }
      if (node.problem() != null) {
        out.append(" (").append(node.problem()).append(')');
      }
      out.append('\n');
      if (node.tiers() != null) {
        TierUsage t = node.tiers();
        out.append("      cache ")
            .append(t.cacheRecords())
            .append(" records ")
            .append(bytes(t.cacheBytes()))
            .append("; pm ")
            .append(t.pmRecords())
            .append(" records ")
            .append(bytes(t.pmBytes()))
            .append(" of ")
            .append(bytes(t.pmCapacityBytes()))
            .append("; ssd ")
            .append(t.ssdRecords())
            .append(" records ")
            .append(bytes(t.ssdBytes()))
            .append(" in ")
            .append(t.ssdSegments())
            .append(t.ssdSegments() == 1 ? " segment\n" : " segments\n");
      }
    }
    out.append("colors:\n");
    for (ColorStatus color : status.colors()) {
      out.append("  ")
          .append(color.name())
          .append(" parent=")
          .append(color.parent() == null ? "-" : color.parent())
          .append(" sequencer=")
          .append(color.sequencer())
          .append(" head=")
          .append(sn(color.head()))
          .append(" tail=")
          .append(sn(color.tail()))
          .append(' ')
          .append(color.retention() == null ? "retention=?" : color.retention().toString())
          .append('\n');
      for (ShardStatus shard : color.shards()) {
        out.append("    shard ").append(shard.id()).append(':');
        for (ReplicaStatus replica : shard.replicas()) {
          out.append(" replica ")
              .append(replica.node())
              .append(" tail=")
              .append(sn(replica.tail()))
              .append(" lag=")
              .append(replica.lag() < 0 ? "?" : Long.toString(replica.lag()))
              .append(" records=")
              .append(replica.records() < 0 ? "?" : Long.toString(replica.records()))
              .append(';');
        }
        out.setLength(out.length() - 1);
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static String sn(long sn) {
    return sn < 0 ? "?" : Long.toString(sn);
  }

  /** {@code 512 B}, {@code 1.5 KiB}, {@code 16.0 MiB}, {@code 2.0 GiB}. */
  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  public static String json(ClusterStatus status) {
    StringBuilder json = new StringBuilder("{\"topology_version\":");
    json.append(status.topologyVersion()).append(",\"nodes\":[");
    String comma = "";
    for (NodeStatus node : status.nodes()) {
      json.append(comma).append("{\"id\":").append(node.id()).append(",\"kind\":");
      quote(json, node.kind());
      json.append(",\"address\":");
      quote(json, node.address());
      json.append(",\"up\":").append(node.up());
      json.append(",\"epoch\":").append(node.epoch() < 0 ? "null" : node.epoch());
      json.append(",\"problem\":");
      quote(json, node.problem());
      json.append(",\"tiers\":");
      tiers(json, node.tiers());
      json.append('}');
      comma = ",";
    }
    json.append("],\"colors\":[");
    comma = "";
    for (ColorStatus color : status.colors()) {
      json.append(comma).append("{\"name\":");
      quote(json, color.name());
      json.append(",\"parent\":");
      quote(json, color.parent());
      json.append(",\"sequencer\":").append(color.sequencer());
      json.append(",\"head\":").append(color.head() < 0 ? "null" : color.head());
      json.append(",\"tail\":").append(color.tail() < 0 ? "null" : color.tail());
      json.append(",\"retention_ms\":")
          .append(color.retention() == null ? "null" : color.retention().ms());
      json.append(",\"retention_bytes\":")
          .append(color.retention() == null ? "null" : color.retention().bytes());
      json.append(",\"shards\":[");
      String shardComma = "";
      for (ShardStatus shard : color.shards()) {
        json.append(shardComma).append("{\"id\":").append(shard.id()).append(",\"replicas\":[");
        String replicaComma = "";
        for (ReplicaStatus replica : shard.replicas()) {
          json.append(replicaComma)
              .append("{\"node\":")
              .append(replica.node())
              .append(",\"tail\":")
              .append(replica.tail() < 0 ? "null" : replica.tail())
              .append(",\"lag\":")
              .append(replica.lag() < 0 ? "null" : replica.lag())
              .append(",\"records\":")
              .append(replica.records() < 0 ? "null" : replica.records())
              .append('}');
          replicaComma = ",";
        }
        json.append("]}");
        shardComma = ",";
      }
      json.append("]}");
      comma = ",";
    }
    return json.append("]}").toString();
  }

  private static void tiers(StringBuilder json, TierUsage t) {
    if (t == null) {
      json.append("null");
      return;
    }
    json.append("{\"cache_records\":")
        .append(t.cacheRecords())
        .append(",\"cache_bytes\":")
        .append(t.cacheBytes())
        .append(",\"pm_records\":")
        .append(t.pmRecords())
        .append(",\"pm_bytes\":")
        .append(t.pmBytes())
        .append(",\"pm_capacity_bytes\":")
        .append(t.pmCapacityBytes())
        .append(",\"ssd_records\":")
        .append(t.ssdRecords())
        .append(",\"ssd_bytes\":")
        .append(t.ssdBytes())
        .append(",\"ssd_segments\":")
        .append(t.ssdSegments())
        .append('}');
  }

  private static void quote(StringBuilder json, String text) {
    if (text == null) {
      json.append("null");
      return;
    }
    json.append('"');
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
