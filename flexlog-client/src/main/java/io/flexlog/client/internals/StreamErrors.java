package io.flexlog.client.internals;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.error.UnknownColorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link ClientSubscription} does with an ERROR frame on one of its streams
 * (docs/architecture.md#subscribe): a replica that is not ready or failed otherwise makes the
 * stream fail over to the next replica; a replica that does not know the color or shard makes the
 * client refetch its topology, then retry or, if the color is gone, end the subscription; a trimmed
 * start or a request error ends the subscription with the typed error.
 *
 * <p>Logs under the {@code ClientSubscription} logger, so that one logger setting covers all of a
 * subscription's lines. Threading: the client's event loop.
 */
final class StreamErrors {
  private static final Logger LOG = LoggerFactory.getLogger(ClientSubscription.class);

  private final ClientSubscription owner;
  private final String colorName;
  private final int colorId;
  private final SubscriptionContext ctx;

  StreamErrors(ClientSubscription owner, String colorName, int colorId, SubscriptionContext ctx) {
    this.owner = owner;
    this.colorName = colorName;
    this.colorId = colorId;
    this.ctx = ctx;
  }

  /** An ERROR frame for a streaming stream of the subscription. */
  void onError(ShardStream stream, ErrorCode code, String message) {
    switch (code) {
      case NOT_READY -> {
        LOG.debug("subscription to '{}': {} refused: {}", colorName, stream, message);
        owner.failover(stream, false);
      }
      case UNKNOWN_COLOR, UNKNOWN_SHARD -> {
        // The replica's topology and ours disagree: refetch ours, then retry or give up.
        stream.park(ctx);
        ctx.refreshMetadata(() -> afterRefresh(stream, message));
      }
      case TRIMMED ->
          owner.fail(new TrimmedException("subscription to color '" + colorName + "': " + message));
      case INVALID_ARGUMENT, PROTOCOL, RECORD_TOO_LARGE ->
          owner.fail(FlexLogException.fromWire(code, message));
      default -> {
        LOG.debug("subscription to '{}': {} failed: {} {}", colorName, stream, code, message);
        owner.failover(stream, false);
      }
    }
  }

  private void afterRefresh(ShardStream stream, String message) {
    if (owner.isStopped() || stream.state != ShardStream.State.PARKED) {
      return;
    }
    if (ctx.topology().color(colorId).filter(c -> c.name().equals(colorName)).isEmpty()) {
      owner.fail(
          new UnknownColorException("color '" + colorName + "' no longer exists: " + message));
      return;
    }
    // We know the color and the shard, the replica does not yet: it is behind, try again.
    owner.failover(stream, false);
  }
}
