/**
 * The client's machinery behind {@link io.flexlog.client.FlexLog}: one protocol role per kind of
 * request, a conductor that owns the event loop, and the Netty edge.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.client.internals.ClientCore} is the conductor: it owns the event loop,
 *       the connections and the metadata fetcher thread, wires the roles, checks the client is
 *       open, and runs every role's deadline check ({@code onTick}) on one timer, followed by one
 *       flush.
 *   <li>The protocol roles, free of sockets and threads: {@code Appends} (APPEND to every replica
 *       of one shard, complete when all acked the same SN), {@code AtomicGroups} (STAGE on every
 *       replica of a broker shard, then COMMIT_GROUP), {@code Reads} (READ one replica of every
 *       shard of the subtree), {@code Trims} (TRIM every replica node of the subtree), {@code
 *       Subscriptions} (opens {@code ClientSubscription}s and routes their streams) and {@code
 *       ClientMetadata} (topology, refreshes, color lookups). A subscription is split into {@code
 *       ClientSubscription} (streams, failover, merge), {@code SubscriptionCredits} (held bytes and
 *       credit per shard), {@code StreamErrors} (ERROR frames on a stream), {@code ShardStream}
 *       (one shard's replica and backoff), {@code SubscriptionMerger} (SN order across shards),
 *       {@code JoinMarks} (topology marks) and {@code SubscriptionQueue} (the hand-over to the
 *       application's thread).
 *   <li>Roles send only through {@code Outbound} (a frame to node N; one flush per loop turn), read
 *       time only from an injected {@code NanoClock} and delay work only through {@code
 *       ClientLoop}, so the unit tests drive them with a recording outbound, a manual clock and a
 *       manual loop, exactly as the running client does with sockets.
 *   <li>Inbound: each node's connection decodes frames, {@code InboundHandler} hands each to the
 *       {@code InboundDispatcher}, which picks the role by frame type, and an ERROR by the range of
 *       its request id ({@code RequestIds}: appends use their token sequence, then atomic groups,
 *       subscriptions, trims and reads each count up from their own base).
 *   <li>The Netty edge is {@code Connections} (the {@code Outbound} over one core {@code
 *       QueuedConnection} per node), {@code InboundHandler} and {@code MetadataFetcher} (a blocking
 *       topology fetch from the bootstrap servers). {@link io.flexlog.client.internals.AdminCalls}
 *       is {@code FlexLogAdmin}'s own edge: one connection per admin request, on its own {@code
 *       flexlog-admin} event loop. Only these and the conductor import {@code io.netty.channel}.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * <p>Everything a role keeps is confined to the client's one event loop. Public methods of {@link
 * io.flexlog.client.FlexLog} run on the application's threads: they validate, stamp the request's
 * deadline from the clock, resolve colors (which may block for one topology fetch, never on the
 * loop) and hand the request to the loop as a task. Answers complete the application's futures on
 * the loop. Topology fetches block, so they run on a separate fetcher thread and hand their result
 * back to the loop. A subscription's records cross to the application's thread through {@code
 * SubscriptionQueue}, under its lock; a {@code HandlerSubscription} runs the record handler on a
 * thread of its own, so a slow handler never stalls the loop.
 *
 * <h2>Failures</h2>
 *
 * <ul>
 *   <li>No answer: appends and atomic groups re-send each request timeout under the same tokens
 *       (the replicas deduplicate) until the delivery deadline, then fail with {@code
 *       FlexLogTimeoutException} (an append may still appear, at most once) or, for a committed
 *       group, {@code AtomicOutcomeUnknownException}. Reads ask the next replica and back off;
 *       trims and reads fail at their deadline.
 *   <li>A lost connection: a frame written while a node is unreachable is dropped and re-sent by
 *       its request's retry; subscription streams of that node resume on another replica from the
 *       SN after the last one released, so nothing is lost or repeated. A replica that stays silent
 *       past the liveness timeout is treated the same way.
 *   <li>A node that does not know a color or shard (UNKNOWN_COLOR, UNKNOWN_SHARD): the request
 *       refreshes the topology once; if the color is gone it fails with {@code
 *       UnknownColorException}, else the node is behind and the request retries until its deadline.
 *   <li>Atomic groups: before COMMIT_GROUP a failure is typed and nothing appears; after it only
 *       GROUP_RESULT, every broker replica aborting ({@code GroupAbortedException}), a failed
 *       member ({@code AtomicMemberFailedException}) or outcome unknown end the group.
 *   <li>Closing the client fails everything in flight and ends every subscription.
 * </ul>
 */
package io.flexlog.client.internals;
