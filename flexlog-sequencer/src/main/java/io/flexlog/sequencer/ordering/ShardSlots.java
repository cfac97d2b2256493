package io.flexlog.sequencer.ordering;

/**
 * A role-local numbering of shards: slot {@code [0, shardCount())} to shard id. A {@link
 * ColorBatch} groups its tokens by these slots, and the {@link Broadcaster} maps them back to
 * shards when it answers.
 */
interface ShardSlots {
  int shardCount();

  int shardId(int slot);
}
