package io.flexlog.replica.replication;

import io.flexlog.core.model.Sn;
import io.flexlog.core.util.TokenWindow;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.TrimmedTokenStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Keeps the tokens of trimmed records across restarts (docs/architecture.md#retention, "Trimmed
 * tokens"). Before a trim point moves, the tokens of the committed entries it covers that the
 * window of committed tokens still remembers go to the {@link TrimmedTokenStore}; at the start they
 * go back into the window before the log is recovered. So a restarted replica answers a retried
 * append, a peer's token sync and a re-sent atomic member of a trimmed record with the record's SN,
 * as the replica before the restart would have, instead of ordering the record a second time.
 *
 * <p>The store grows by one token per trimmed record. When it holds more than twice what it held
 * after its last rewrite and twice the window's slots, it is rewritten in the background with only
 * the tokens a copy of the window still remembers, so it stays within a few times the window's own
 * bound.
 *
 * <p>Threading: the replica's event loop.
 */
final class TrimmedTokens {
  private final ShardLogs shards;
  private final LogStorage storage;
  private final TokenWindow committedTokens;
  private final Counter kept;
  private TrimmedTokenStore store = TrimmedTokenStore.NONE;

  TrimmedTokens(
      ShardLogs shards, LogStorage storage, TokenWindow committedTokens, MeterRegistry registry) {
    this.shards = shards;
    this.storage = storage;
    this.committedTokens = committedTokens;
    String node = Integer.toString(shards.nodeId());
    this.kept =
        Counter.builder("flexlog.replica.trimmed.tokens")
            .tag("node", node)
            .description("tokens of trimmed records kept so that a restart still knows them")
            .register(registry);
    FunctionCounter.builder(
            "flexlog.replica.trimmed.tokens.compactions", this, t -> t.store.compactions())
        .tag("node", node)
        .description("rewrites of the trimmed-token store down to the tokens still remembered")
        .register(registry);
    Gauge.builder("flexlog.replica.trimmed.tokens.stored", this, t -> t.store.count())
        .tag("node", node)
        .description("tokens in the trimmed-token store")
        .register(registry);
  }

  /** Where the tokens go; call before {@link #restore()}. */
  void store(TrimmedTokenStore store) {
    this.store = store;
  }

  /** Puts the stored tokens into the window; call before the log is recovered. */
  void restore() {
    store.load(committedTokens::put);
  }

  /**
   * Stores the tokens of the committed entries of {@code colorId} that a trim through {@code
   * through} removes, before the trim point moves.
   *
   * @throws io.flexlog.replica.storage.StorageException when they cannot be stored: the trim must
   *     not happen then
   */
  void beforeTrim(int colorId, long through) {
    long from = storage.trimPoint(colorId);
    if (through <= from || store == TrimmedTokenStore.NONE) {
      return;
    }
    int added = 0;
    for (int i = 0; i < shards.logCount(); i++) {
      ColorLog log = shards.logAt(i);
      if (log.colorId == colorId) {
        added += addTrimmed(log.index, from, through);
      }
    }
    if (added == 0) {
      return;
    }
    store.sync();
    kept.increment(added);
    store.compactIfGrown(
        committedTokens.slots(),
        () -> {
          TokenWindow remembered = committedTokens.copy(); // the rewrite runs on another thread
          return (session, sequence, sn) -> remembered.get(session, sequence) == sn;
        });
  }

  private int addTrimmed(SnIndex index, long from, long through) {
    int added = 0;
    for (int p = index.ceilingPosition(from + 1); p < index.size(); p++) {
      long sn = index.snAt(p);
      if (sn > through) {
        break;
      }
      long address = index.addressAt(p);
      long session = storage.tokenSession(address);
      long sequence = storage.tokenSequence(address);
      if (committedTokens.get(session, sequence) == sn && sn != Sn.NONE) {
        store.add(session, sequence, sn);
        added++;
      }
    }
    return added;
  }

  void close() {
    store.close();
  }
}
