package io.flexlog.sim;

/**
 * The properties the {@link SimWorld} checks after every step (and, for some, once the healed
 * cluster is quiet); the {@code GROUP_} ones are {@link GroupSimulationTest}'s. docs/testing.md
 * explains each and which fault modes enforce it.
 */
enum Invariant {
  /** Every role issues strictly increasing SNs of its color, across epochs and restarts. */
  SNS_INCREASE,
  /** No SN of a color ever holds two different records (acks, reads and subscriptions agree). */
  ONE_RECORD_PER_SN,
  /** A read of an SN acknowledged before the read began returns that record, never a hole. */
  READS_SEE_ACKED,
  /** An append token is acknowledged at one SN only, by every replica and forever. */
  ONE_SN_PER_TOKEN,
  /** Failover: no SN of a color is issued twice, by the same node or by two nodes. */
  ONE_ISSUER_PER_SN,
  /** Failover: at no virtual instant may two nodes issue SNs of one color (their leases). */
  ONE_ISSUER_AT_A_TIME,
  /** Any two subscribers of a color deliver the same records over the SN range both passed. */
  SUBSCRIBERS_AGREE,
  /** Once healed, every client operation completes (successfully or with a typed error). */
  OPERATIONS_COMPLETE,
  /** Once healed, every subscriber delivers every record acknowledged in its color. */
  SUBSCRIBERS_COMPLETE,
  /** Once healed, an atomic group's members are all stored or none is (whatever the client saw). */
  ATOMIC_ALL_OR_NOTHING,
  /** Once healed, every replica still holds every record it acknowledged, at the same SN. */
  ACKS_DURABLE,
  /**
   * Retention: no replica's trim point of a color covers an acknowledged record appended less than
   * {@code retention.ms} ago.
   */
  RETENTION_SPARES_RECENT,
  /**
   * Retention, once healed: every replica of the color's subtree trims through every acknowledged
   * record once {@code retention.ms} has passed.
   */
  RETENTION_CONVERGES,
  /** Consumer group: every member applies the same group records, and reaches the same state. */
  GROUP_AGREEMENT,
  /** Consumer group: no two members ever read one shard under the same generation. */
  GROUP_ONE_OWNER,
  /**
   * Consumer group: a commit is accepted if and only if its member still owns each of its shards
   * without interruption since it began reading it; the member is told the same.
   */
  GROUP_FENCING,
  /** Consumer group: no committed position ever moves back. */
  GROUP_POSITIONS_MONOTONIC,
  /** Consumer group: a member reads each shard of its assignment in increasing SN order. */
  GROUP_SHARD_ORDER,
  /** Consumer group, once healed: the live members are the group, every shard is theirs. */
  GROUP_CONVERGES,
  /** Consumer group, once healed: every record of the read color is processed at least once. */
  GROUP_PROCESSED_ALL
}
