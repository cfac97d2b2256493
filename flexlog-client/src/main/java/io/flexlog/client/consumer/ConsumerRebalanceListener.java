package io.flexlog.client.consumer;

import java.util.Collection;

/**
 * Told of a group member's assignment changes, on the thread that calls {@link
 * FlexLogConsumer#poll}, inside {@code poll}. Assignment is cooperative: a rebalance names only the
 * shards that move; the member keeps reading every other shard without a pause.
 *
 * <p>When {@link #onRevoked} runs, the shards already belong to another member (or to nobody) in
 * the group log, so a commit for them from here is rejected ({@link CommitFailedException}): commit
 * regularly (or keep {@code enable.auto.commit}) so that little is read twice.
 */
public interface ConsumerRebalanceListener {
  /** These shards were taken from this member; it no longer reads them. */
  void onRevoked(Collection<ColorShard> revoked);

  /** These shards were given to this member; it reads them from their committed positions. */
  void onAssigned(Collection<ColorShard> assigned);

  /** A listener that does nothing. */
  ConsumerRebalanceListener NONE =
      new ConsumerRebalanceListener() {
        @Override
        public void onRevoked(Collection<ColorShard> revoked) {}

        @Override
        public void onAssigned(Collection<ColorShard> assigned) {}
      };
}
