package io.flexlog.server.control;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import java.util.List;

/**
 * The outcome of AlterColor.
 *
 * @param color the color with its settings after the call
 * @param changed false when the color already had these settings (no new version)
 * @param topology the topology holding the settings, durable
 * @param unacknowledgedNodeIds nodes that had not applied {@code topology} when AlterColor returned
 */
public record AlterColorResult(
    Color color, boolean changed, Topology topology, List<Integer> unacknowledgedNodeIds) {
  public AlterColorResult {
    unacknowledgedNodeIds = List.copyOf(unacknowledgedNodeIds);
  }
}
