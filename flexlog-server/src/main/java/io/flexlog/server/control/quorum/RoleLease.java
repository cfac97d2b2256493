package io.flexlog.server.control.quorum;

/**
 * The lease of one color's sequencer role in the metadata quorum (docs/architecture.md, "Sequencer
 * failover"): who leads it, in which epoch, and how many renewals were committed in that epoch. A
 * backup that sees {@code renewals} stand still for a lease period takes the role over, on the
 * condition that the lease is still exactly this one.
 */
public record RoleLease(int colorId, int leaderNodeId, int epoch, long renewals) {}
