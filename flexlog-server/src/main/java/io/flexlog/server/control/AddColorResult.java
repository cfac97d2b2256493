package io.flexlog.server.control;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import java.util.List;

/**
 * The outcome of AddColor.
 *
 * @param color the color (new, or the existing one with the same settings)
 * @param created false when the color already existed with the same settings
 * @param topology the topology holding the color, durable
 * @param unacknowledgedNodeIds nodes that had not applied {@code topology} when AddColor returned
 */
public record AddColorResult(
    Color color, boolean created, Topology topology, List<Integer> unacknowledgedNodeIds) {
  public AddColorResult {
    unacknowledgedNodeIds = List.copyOf(unacknowledgedNodeIds);
  }
}
