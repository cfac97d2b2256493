package io.flexlog.replica.storage;

import java.util.ArrayList;
import java.util.List;

/** One entry as {@link LogStorage#recover} reported it, with a copy of its payload. */
public record Entry(
    long address,
    int shardId,
    int colorId,
    long tokenSession,
    long tokenSequence,
    long sn,
    int payloadLength,
    byte[] payload) {

  /** Recovers {@code storage} and returns every entry with a copy of its payload. */
  public static List<Entry> recoverAll(LogStorage storage) {
    List<Entry> entries = new ArrayList<>();
    storage.recover(
        (address, shard, color, session, sequence, sn, length) ->
            entries.add(
                new Entry(
                    address,
                    shard,
                    color,
                    session,
                    sequence,
                    sn,
                    length,
                    TestPayloads.copy(storage.payload(address)))));
    return entries;
  }
}
