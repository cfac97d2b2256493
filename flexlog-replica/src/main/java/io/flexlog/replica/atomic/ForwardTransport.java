package io.flexlog.replica.atomic;

import io.flexlog.replica.replication.PeerGateway;

/**
 * How a replica of a broker shard sends APPEND frames to the replicas of target shards, acting as a
 * client. Implemented over TCP by {@link PeerLinks}; tests capture frames instead. Loop-confined.
 */
public interface ForwardTransport extends PeerGateway {}
