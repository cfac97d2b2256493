package io.flexlog.replica.replication;

/**
 * One subscriber's stream of a color on one shard replica (docs/architecture.md#subscribe): where
 * it stands, what it may still receive, and what it was last told. Loop-confined, like the rest of
 * the engine.
 */
final class Subscription {
  final Connection connection;
  final long id;
  final ColorLog log;

  /** The smallest SN not sent yet: records are sent in SN order from here on. */
  long nextSn;

  /** Bytes the subscriber can still take; may go below zero by one record (see SUBSCRIBE). */
  long credit;

  /** The progress last sent, or -1 before the first frame. */
  long progressSent = -1;

  /**
   * The number of the next join mark of the log to deliver (see {@link ColorLog#addMark}); marks go
   * out before anything else the pump sends, so before any record or progress at or above them.
   */
  long nextMark;

  /** The heartbeat tick of the last frame sent (see {@link SubscriptionService#heartbeatTick}). */
  long lastSendTick;

  /** In the service's ready queue. */
  boolean queued;

  /** Waiting for the connection to become writable again. */
  boolean blocked;

  boolean closed;

  Subscription(Connection connection, long id, ColorLog log, long fromSn, long credit) {
    this.connection = connection;
    this.id = id;
    this.log = log;
    this.nextSn = fromSn;
    this.nextMark = log.firstMark();
    this.credit = credit;
  }
}
