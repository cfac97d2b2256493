package io.flexlog.client;

import java.util.List;

/**
 * The outcome of {@link FlexLogAdmin#alterColor}.
 *
 * @param color the color with its settings after the call
 * @param changed false when the color already had these settings (no new topology version)
 * @param topologyVersion the cluster topology version that holds the settings
 * @param unacknowledgedNodeIds nodes that had not applied that version when the call returned; they
 *     get it when they reconnect
 */
public record AlterColorResult(
    ColorDescription color,
    boolean changed,
    long topologyVersion,
    List<Integer> unacknowledgedNodeIds) {
  public AlterColorResult {
    unacknowledgedNodeIds = List.copyOf(unacknowledgedNodeIds);
  }
}
