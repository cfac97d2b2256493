package io.flexlog.client;

import java.util.List;

/**
 * The outcome of {@link FlexLogAdmin#createColor}.
 *
 * @param color the color: the new one, or the existing one with the same settings
 * @param created false when a color of that name already existed with the same settings (creating a
 *     color is idempotent by name)
 * @param topologyVersion the cluster topology version that holds the color
 * @param unacknowledgedNodeIds nodes that had not applied that version when the call returned; they
 *     get it when they reconnect, and until then may refuse requests for the new color
 */
public record CreateColorResult(
    ColorDescription color,
    boolean created,
    long topologyVersion,
    List<Integer> unacknowledgedNodeIds) {
  public CreateColorResult {
    unacknowledgedNodeIds = List.copyOf(unacknowledgedNodeIds);
  }
}
