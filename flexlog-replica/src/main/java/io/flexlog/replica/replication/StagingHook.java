package io.flexlog.replica.replication;

import io.netty.buffer.ByteBuf;

/**
 * What the replication engine hands to the atomic-append component
 * (docs/architecture.md#atomic-multi-color-append, {@code io.flexlog.replica.atomic}): log entries
 * of the reserved staging color, the client frames of atomic appends, and the end of every flush.
 *
 * <p>Entries of {@link #STAGING_COLOR_ID} are never records: the engine never indexes, orders,
 * reads, streams or watermarks them, and never treats them as pending appends. Threading: every
 * method runs on the engine's event loop.
 */
public interface StagingHook {
  /** The color id of staging entries; real color ids are {@code >= 0}. */
  int STAGING_COLOR_ID = -2;

  /** Drops staging entries and refuses atomic frames: a node without the atomic component. */
  StagingHook NONE =
      new StagingHook() {
        @Override
        public void onRecoveredEntry(
            long address, int shardId, long tokenSession, long tokenSequence, long sn) {}

        @Override
        public void onRecovered() {}

        @Override
        public boolean onClientFrame(Connection connection, ByteBuf frame) {
          return false;
        }

        @Override
        public void onFlushed() {}
      };

  /** A staging entry found by recovery, in log order; {@code sn == 0} if its commit was lost. */
  void onRecoveredEntry(long address, int shardId, long tokenSession, long tokenSequence, long sn);

  /** Recovery has replayed every entry; the log is ready for appends. */
  void onRecovered();

  /**
   * A STAGE or COMMIT_GROUP frame from a client; the caller keeps ownership of the frame.
   *
   * @return false if this node does not serve atomic appends
   */
  boolean onClientFrame(Connection connection, ByteBuf frame);

  /** Everything appended or committed before this call is durable. */
  void onFlushed();
}
