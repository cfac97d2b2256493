/**
 * The in-memory index of committed entries: per shard and color, SNs in increasing order with the
 * storage address of each, 8 bytes per entry in pages of {@code int} offsets ({@link
 * io.flexlog.replica.index.SnIndex}).
 *
 * <p>The replication roles ({@code io.flexlog.replica.replication}) fill it during recovery and on
 * every commit, search it for reads and subscriptions, and drop its pages of trimmed entries; it is
 * rebuilt from the log at every start and never persisted. Threading: owned by the replica's event
 * loop, not thread-safe. See docs/architecture.md#index.
 */
package io.flexlog.replica.index;
