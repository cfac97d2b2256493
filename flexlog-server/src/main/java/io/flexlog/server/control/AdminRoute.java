package io.flexlog.server.control;

import io.flexlog.core.error.FlexLogException;
import java.util.Optional;

/**
 * Which node's admin service serves changes and topology streams: with a metadata quorum, the
 * quorum's leader (docs/architecture.md, "Metadata quorum"); followers forward AddColor to it and
 * send watchers there.
 */
@FunctionalInterface
public interface AdminRoute {
  /** A node that holds the metadata alone serves everything itself. */
  AdminRoute SELF = Optional::empty;

  /**
   * Empty when this node serves the call itself, else the leader's admin address.
   *
   * @throws io.flexlog.core.error.MetadataUnavailableException when no leader is known
   */
  Optional<HostPort> leaderAdmin();

  /**
   * Whether this node serves topology streams now, answered without waiting for an election: it
   * leads the metadata quorum, or holds the metadata alone. A node that stops leading ends the
   * streams it serves (docs/architecture.md#metadata-quorum).
   */
  default boolean servesStreamsNow() {
    try {
      return leaderAdmin().isEmpty();
    } catch (FlexLogException e) {
      return false;
    }
  }

  /**
   * The admin address of another node that this node knows leads the metadata quorum now, answered
   * without waiting; empty when it knows none (an election) or holds the metadata alone. Sent to
   * the watchers whose streams this node ends, so that they go to the leader at once instead of
   * trying the quorum's nodes in turn, one of which may be cut off.
   */
  default Optional<HostPort> otherLeaderNow() {
    return Optional.empty();
  }
}
