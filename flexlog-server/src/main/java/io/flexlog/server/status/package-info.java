/**
 * {@code bin/flexlog status}: {@link io.flexlog.server.status.ClusterStatus} asks every node of the
 * topology for its colors' trim points and tails (one TAIL_REQUEST connection per node, {@code
 * NodeProbe}) and {@link io.flexlog.server.status.StatusFormat} prints the result as text or JSON
 * (docs/operations.md, "Status").
 */
package io.flexlog.server.status;
