/**
 * The sequencer node: the process that orders appends for the colors it hosts and forwards the
 * others up the sequencer tree (docs/architecture.md#ordering-in-the-sequencer-tree).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.sequencer.SequencerNode} is the process shell and the API other modules
 *       use ({@code flexlog-server}, {@code flexlog-bench}): configured by {@link
 *       io.flexlog.sequencer.SequencerConfig}, it makes a new epoch durable in its {@link
 *       io.flexlog.sequencer.EpochStore}, runs one Netty event loop, binds the data-plane port and
 *       applies newer topologies.
 *   <li>It builds the node's {@link io.flexlog.sequencer.ordering.OrderingService}, the socket-free
 *       state machine in {@code io.flexlog.sequencer.ordering}, and gives it its event loop, clock
 *       and parent connections as a {@link io.flexlog.sequencer.ordering.NodeRuntime}.
 *   <li>The Netty adapters in {@code io.flexlog.sequencer.net} connect the two: one channel handler
 *       per inbound connection (replicas, child nodes) and one connector per parent node.
 * </ul>
 *
 * <p>Dependencies point one way: this package uses {@code ordering} and {@code net}, {@code net}
 * uses {@code ordering}, and {@code ordering} uses neither, so it runs unchanged in the
 * deterministic simulations.
 *
 * <p>Threading: {@link io.flexlog.sequencer.SequencerNode}'s public methods may be called from any
 * thread; everything they reach runs on the node's one event loop.
 */
package io.flexlog.sequencer;
