package io.flexlog.server.control;

import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * What AlterColor asks for and the topology it produces (docs/architecture.md#retention): today the
 * color's retention; a field left null keeps its value.
 *
 * @param name the color
 * @param retentionMs the new {@code retention.ms}, or null to keep it
 * @param retentionBytes the new {@code retention.bytes}, or null to keep it
 */
public record ColorAlteration(String name, Long retentionMs, Long retentionBytes) {
  /**
   * Checks the values before anything is looked up.
   *
   * @throws InvalidArgumentException when nothing would change or a value is neither -1 nor > 0
   */
  public ColorAlteration validated() {
    if (retentionMs == null && retentionBytes == null) {
      throw new InvalidArgumentException(
          "cannot alter color '"
              + name
              + "': nothing to change (give retention.ms or"
              + " retention.bytes)");
    }
    retentionOf(name, Retention.KEEP_ALL, retentionMs, retentionBytes);
    return this;
  }

  /** The color as altered; equal to {@code existing} when nothing changes. */
  Color applyTo(Color existing) {
    return existing.withRetention(
        retentionOf(name, existing.retention(), retentionMs, retentionBytes));
  }

  /**
   * The color of this name in {@code topology}.
   *
   * @throws UnknownColorException naming the colors the cluster has
   */
  Color find(Topology topology) {
    return topology
        .color(name)
        .orElseThrow(
            () ->
                new UnknownColorException(
                    "cannot alter color '"
                        + name
                        + "': no such color; the cluster has "
                        + topology.colors().stream().map(Color::name).sorted().toList()));
  }

  /** {@code topology} with {@code altered} in place of the color of its id, one version later. */
  static Topology replace(Topology topology, Color altered) {
    List<Color> colors = new ArrayList<>();
    for (Color color : topology.colors()) {
      colors.add(color.id() == altered.id() ? altered : color);
    }
    return new Topology(
        topology.version() + 1, List.copyOf(topology.nodes().values()), colors, topology.shards());
  }

  /**
   * {@code base} with the given limits replaced.
   *
   * @throws InvalidArgumentException naming the color and the setting of a bad value
   */
  public static Retention retentionOf(String color, Retention base, Long ms, Long bytes) {
    try {
      Retention r = base;
      if (ms != null) {
        r = r.withMs(ms);
      }
      if (bytes != null) {
        r = r.withBytes(bytes);
      }
      return r;
    } catch (IllegalArgumentException e) {
      throw new InvalidArgumentException("color '" + color + "': " + e.getMessage());
    }
  }
}
