/**
 * Small building blocks that several modules would otherwise write each on their own. None of them
 * touches the network or Netty.
 *
 * <ul>
 *   <li>{@link io.flexlog.core.util.TokenLongMap}: an open-addressing map from a 128-bit token (two
 *       {@code long}s) to a {@code long}, without boxing, optionally keeping only the newest {@code
 *       retainLimit} keys (a sliding deduplication window). The hot-path dedup tables use it: the
 *       sequencer's {@code OrderingRole} and {@code ForwardRoute}, the replica's pending appends
 *       and replication engine.
 *   <li>{@link io.flexlog.core.util.Backoff}: capped exponential backoff with optional jitter drawn
 *       from an injected random generator (tests pass a seeded one). Reconnect loops use it: the
 *       sequencer's {@code ParentConnector} and the server's {@code TopologyWatcher}.
 *   <li>{@link io.flexlog.core.util.DurableFiles}: the one durable replacement of a small file
 *       (temp file, fsync, atomic rename, directory fsync), so a crash leaves the old or the new
 *       content, never a torn one. Users: the sequencer's {@code EpochStore} and the server's
 *       {@code MetadataStore}; tests inject {@link io.flexlog.core.util.DurableFiles.FileOps} to
 *       crash between the steps.
 * </ul>
 *
 * <p>Threading: {@code TokenLongMap} and {@code Backoff} are not thread-safe and belong to one
 * owner (an event loop, or callers holding a lock); {@code DurableFiles} is stateless, and callers
 * keep two writes of the same file apart.
 *
 * <p>Failures: constructors reject illegal arguments with {@link IllegalArgumentException} (a
 * negative retain limit, a backoff with {@code max < initial}, a multiplier below 1, a jitter
 * outside {@code [0, 1]}). {@code DurableFiles.writeAtomically} throws {@link java.io.IOException}
 * when a step fails, with the target holding its old content; a file system that cannot rename
 * atomically is reported as such. The files written this way are listed in {@code
 * docs/operations.md} ("Data directories").
 */
package io.flexlog.core.util;
