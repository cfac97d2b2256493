/**
 * The public Java client of FlexLog, the only package an application needs: {@link
 * io.flexlog.client.FlexLog} (connect, append, atomic multi-color append, read, subscribe, trim),
 * its settings {@link io.flexlog.client.FlexLogConfig} (Kafka-style keys such as {@code
 * bootstrap.servers} and {@code delivery.timeout.ms}, from a builder or {@code Properties}), and
 * the types it hands out: {@link io.flexlog.client.LogRecord}, {@link
 * io.flexlog.client.TrimResult}, and the two forms of a subscription, push ({@link
 * io.flexlog.client.RecordHandler} behind a {@link io.flexlog.client.Subscription}) and pull
 * ({@link io.flexlog.client.RecordStream}).
 *
 * <h2>Who talks to whom</h2>
 *
 * <p>Applications call in: in this repository the {@code append}, {@code read}, {@code tail} and
 * {@code trim} commands of flexlog-server, the load generators of flexlog-bench and the integration
 * tests of flexlog-it. {@code FlexLog} is a thin facade: each call goes to the client's engine in
 * {@code io.flexlog.client.internals}, which fetches the topology with METADATA_REQUEST from the
 * first bootstrap node that answers (any node, a sequencer too), connects to the replica nodes and
 * speaks the data-plane frames of {@code io.flexlog.core.protocol} with them (APPEND, READ,
 * SUBSCRIBE, TRIM, STAGE and COMMIT_GROUP). Beyond that request it never talks to sequencers.
 * {@link io.flexlog.client.FlexLogAdmin} creates, alters and describes colors and describes the
 * cluster by sending admin frames (CREATE_COLOR, ALTER_COLOR, DESCRIBE_COLORS, DESCRIBE_CLUSTER) to
 * a bootstrap node, which relays them to the admin service, so the jar still depends on
 * flexlog-core and Netty only.
 *
 * <p>Threading: {@code FlexLog} is thread-safe: application threads call it, and the work runs on
 * one event loop ({@code flexlog-client}) that owns all protocol state; topology fetches run on a
 * {@code flexlog-metadata} thread, and each push subscription calls its handler on its own {@code
 * flexlog-subscription-...} thread. The futures of the {@code *Async} methods complete on the event
 * loop, so their callbacks must not block. A {@code RecordStream} is read by one thread and may be
 * closed from any.
 *
 * <p>Failures: errors are unchecked {@code FlexLogException}s of {@code io.flexlog.core.error}, one
 * type per wire code ({@code connect} throws {@code FlexLogTimeoutException} when no bootstrap node
 * answers within {@code connect.timeout.ms}): for example {@code UnknownColorException} (after one
 * topology refresh), {@code RecordTooLargeException} (checked before sending), {@code
 * TrimmedException}, and {@code FlexLogTimeoutException} when a deadline passes; a timed-out append
 * may still appear, never twice, since retries reuse its token. Atomic appends end with their SNs
 * or one of the atomic outcomes described on {@code FlexLog#appendAtomically}. Bad settings fail
 * {@code FlexLogConfig} with an {@link IllegalArgumentException} naming the key. The client's
 * protocols: {@code docs/architecture.md} ("Client"); the frames: {@code docs/protocol.md}.
 */
package io.flexlog.client;
