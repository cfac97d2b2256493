/**
 * The cluster file and a node's settings: what an operator writes, checked and turned into the
 * model and the configuration objects of the nodes.
 *
 * <ul>
 *   <li>{@link io.flexlog.server.config.ClusterFile} parses the YAML cluster file (SnakeYAML's safe
 *       constructor): the {@code cluster:} section (nodes with an optional {@code admin-port} on
 *       the root color's sequencer node, colors, shards, {@code max-record-bytes}) becomes a {@link
 *       io.flexlog.core.model.Topology}; the optional {@code node:} section, with command-line
 *       overrides, becomes {@link io.flexlog.server.config.NodeSettings}.
 *   <li>{@link io.flexlog.server.config.NodeSettings}: one node process's data directory, storage
 *       engine, durability, PM and chunk sizes, tier settings (cache, PM high watermark, SSD
 *       segments), read hold, metrics port, subscription heartbeat and atomic-append settings,
 *       handed on as the replica module's {@code TieredStorageConfig} and {@code AtomicConfig}.
 *   <li>{@link io.flexlog.server.config.DataSize} parses and prints sizes such as {@code 256MiB}.
 * </ul>
 *
 * <p>Who talks to whom: the {@code sequencer} and {@code replica} commands ({@code
 * io.flexlog.server.cli}) load a cluster file and pass it with the settings to {@link
 * io.flexlog.server.NodeProcess}, and {@link io.flexlog.server.Nodes} reads the settings to build a
 * node and open its storage. The benchmarks in flexlog-bench use {@code DataSize} for their size
 * options and reports. This package calls only the core model, the replica module's configuration
 * types and engine names, and SnakeYAML; it opens no file but the cluster file.
 *
 * <p>Failures: every problem is an {@link IllegalArgumentException} whose message names the file
 * and the key at fault (an unknown top-level or section key, invalid YAML, a size or port out of
 * range, a shard attached to an unknown color, an inconsistent topology), which the command line
 * reports as bad usage (exit code 2). Threading: parsing runs once on the starting thread; the
 * results are immutable. The cluster file and its keys: {@code docs/operations.md} ("A
 * multi-process cluster").
 */
package io.flexlog.server.config;
