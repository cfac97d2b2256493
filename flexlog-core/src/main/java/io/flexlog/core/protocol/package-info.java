/**
 * The data-plane wire protocol: one stateless {@code *Descriptor} class per frame layout, with the
 * offsets of its fields, an {@code encode} that allocates and writes a whole frame, a {@code
 * validate} that checks the body's length and counts, and accessors that read fields in place from
 * the frame's {@code ByteBuf} (no decoding into objects, no per-frame allocation besides the
 * frame).
 *
 * <ul>
 *   <li>{@link io.flexlog.core.protocol.FrameDescriptor}: the 16-byte header (length, magic,
 *       version, type, request id) shared by every frame. {@link
 *       io.flexlog.core.protocol.MessageType}: the type codes, part of the wire format and never
 *       renumbered.
 *   <li>{@link io.flexlog.core.protocol.FrameDecoder}: the Netty handler that cuts the byte stream
 *       into frames and runs {@link io.flexlog.core.protocol.Frames#validate}, which dispatches to
 *       the descriptor of the frame's type, so handlers behind it can trust every accessor.
 *   <li>Client and replica: APPEND, APPEND_ACK, READ, READ_RESPONSE, TRIM, TRIM_RESPONSE, the
 *       SUBSCRIBE family, the atomic-append frames (STAGE, STAGE_ACK, COMMIT_GROUP, GROUP_RESULT),
 *       METADATA, ERROR. Replica and sequencer: HELLO, WELCOME, ORDER_REQUEST, ORDER_RESPONSE,
 *       WATERMARK, TOPOLOGY_MARK. Sequencer and sequencer: SEQUENCER_HELLO, RANGE_REQUEST,
 *       RANGE_RESPONSE, TREE_WATERMARK. Replica and replica: TOKEN_SYNC and its response.
 *   <li>Client and any node: the admin frames (CREATE_COLOR, DESCRIBE_COLORS, DESCRIBE_CLUSTER,
 *       ALTER_COLOR and their responses), which decode into records ({@link
 *       io.flexlog.core.protocol.ColorEntry}, the descriptors' {@code Request} and {@code
 *       Response}): they are rare and small. A node hands them to an {@link
 *       io.flexlog.core.protocol.AdminRelay}, which the control plane implements
 *       (docs/architecture.md#admin-requests-on-the-data-plane).
 * </ul>
 *
 * <h2>Who talks to whom</h2>
 *
 * <p>Every node and the client encode and read frames through these classes: the sequencer, the
 * replica, the client, and the benchmarks in flexlog-bench that drive a sequencer with raw frames.
 * This package depends only on Netty buffers, {@code io.flexlog.core.model} and {@code
 * io.flexlog.core.error}. {@link io.flexlog.core.net.ClientBootstrap} and the nodes' servers put a
 * {@code FrameDecoder} first in every pipeline.
 *
 * <p>Failures and threading: a frame that breaks its layout (length outside the limit, bad magic or
 * version, unknown type, a count that does not match the body) makes the decoder throw a {@link
 * io.flexlog.core.error.ProtocolException} and discard the rest of the stream; the handler behind
 * it answers with an ERROR of code {@code PROTOCOL} and closes that connection only (see {@link
 * io.flexlog.core.net.ConnectionErrors}). Descriptors are stateless and thread-safe; a {@code
 * FrameDecoder} belongs to one channel and runs on its event loop. Every frame emitted is a
 * retained slice that the next handler must release. Byte layouts: {@code docs/protocol.md}, which
 * {@code ProtocolDocTest} checks against these classes; the protocols the frames form: {@code
 * docs/architecture.md}.
 */
package io.flexlog.core.protocol;
