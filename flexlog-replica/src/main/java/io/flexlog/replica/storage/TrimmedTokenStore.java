package io.flexlog.replica.storage;

import java.util.function.Supplier;

/**
 * Where a replica keeps the tokens of the records it trimmed, with their SNs, so that a restart
 * still recognizes them (docs/architecture.md#retention, "Trimmed tokens"). Recovery rebuilds the
 * replica's window of committed tokens from its log, and a trimmed record is no longer there: a
 * late copy of such a record (a peer's pending one, an atomic group's member re-sent after a
 * restart) would otherwise get a second SN.
 *
 * <p>{@link TrimmedTokenFile} on a node; {@link #NONE} keeps nothing (a restart then forgets the
 * tokens of trimmed records, as before). Threading: the replica's owner thread.
 */
public interface TrimmedTokenStore extends AutoCloseable {
  /**
   * Replays every stored token, oldest first, and remembers where the intact part ends. Called
   * once, before any other method. Never changes what is stored: a damaged tail is ignored here and
   * overwritten by the first {@link #sync}.
   */
  void load(TokenVisitor visitor);

  /** Adds a token; durable once {@link #sync} returns. */
  void add(long session, long sequence, long sn);

  /**
   * Makes every {@link #add} since the last call durable, as the log's durability mode makes its
   * entries durable.
   *
   * @throws StorageException when the write fails; the added tokens are then not stored
   */
  void sync();

  /** Tokens stored (loaded, synced, or kept by the last rewrite and added since). */
  long count();

  /**
   * Starts rewriting the store in the background with only the tokens {@code filter} accepts, once
   * it holds more than twice what its last rewrite kept (and at least a minimum); does nothing
   * while a rewrite runs. The filter is taken from the supplier on the caller's thread and then
   * used on another one, so it must share no state with the caller. Tokens added meanwhile are
   * kept. The rewritten store takes the old one's place at a later {@link #sync}, crash-safely: a
   * crash before leaves the old tokens, one after it the kept and the later ones. A failed rewrite
   * is logged and leaves the old tokens.
   *
   * @return true if a rewrite started
   */
  boolean compactIfGrown(long mostKept, Supplier<TokenFilter> filter);

  /** Rewrites that took the old store's place. */
  long compactions();

  @Override
  void close();

  /** Receives tokens from {@link #load}. */
  @FunctionalInterface
  interface TokenVisitor {
    void onToken(long session, long sequence, long sn);
  }

  /** Decides which tokens {@link #compactIfGrown} keeps. */
  @FunctionalInterface
  interface TokenFilter {
    boolean keep(long session, long sequence, long sn);
  }

  /** Keeps nothing. */
  TrimmedTokenStore NONE =
      new TrimmedTokenStore() {
        @Override
        public void load(TokenVisitor visitor) {}

        @Override
        public void add(long session, long sequence, long sn) {}

        @Override
        public void sync() {}

        @Override
        public long count() {
          return 0;
        }

        @Override
        public boolean compactIfGrown(long mostKept, Supplier<TokenFilter> filter) {
          return false;
        }

        @Override
        public long compactions() {
          return 0;
        }

        @Override
        public void close() {}
      };
}
