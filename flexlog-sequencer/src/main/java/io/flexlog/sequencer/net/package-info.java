/**
 * The Netty edge of a sequencer node: the only classes of the sequencer that touch channels.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.sequencer.net.SequencerChannelHandler}: one per inbound connection (a
 *       replica or a child sequencer node); hands the validated frames of {@code FrameDecoder} to
 *       {@link io.flexlog.sequencer.ordering.SequencerInbound}, writes through a {@code
 *       ChannelOutbound}, and closes only its own connection when the peer breaks the protocol.
 *   <li>{@link io.flexlog.sequencer.net.ParentConnector}: one per parent node; keeps the connection
 *       to it open with backoff and reports it, and its frames, to the {@link
 *       io.flexlog.sequencer.ordering.OrderingService}.
 * </ul>
 *
 * <p>{@link io.flexlog.sequencer.SequencerNode} creates both. Their public constructors, {@code
 * start} and {@code close} are internal to the sequencer: public only because the node and the
 * sequencer's tests live in other packages.
 *
 * <p>Threading: every callback runs on the node's one event loop, the thread that owns the ordering
 * service.
 */
package io.flexlog.sequencer.net;
