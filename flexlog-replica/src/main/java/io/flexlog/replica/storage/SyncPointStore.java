package io.flexlog.replica.storage;

/**
 * Where a replica keeps its {@link SyncPointTable} across restarts ({@link SyncPointFile} on a
 * node; {@link #NONE} keeps nothing, and the replica then starts blind from epoch 1 as before).
 *
 * <p>Threading: {@link #load} and {@link #save} are called by the replica's owner thread; {@link
 * #save} must not block it.
 */
public interface SyncPointStore extends AutoCloseable {
  /**
   * The table saved last, or an empty one when there is none or it cannot be trusted (the reason is
   * logged). Never changes what is stored.
   */
  SyncPointTable load();

  /**
   * Replaces the stored table, crash-safely, without blocking the caller; a later call may
   * supersede an earlier one that was not written yet. A failed write leaves the previous table.
   */
  void save(SyncPointTable table);

  /** Writes what {@link #save} was last given, if it is not written yet, then stops. */
  @Override
  void close();

  /** Keeps nothing. */
  SyncPointStore NONE =
      new SyncPointStore() {
        @Override
        public SyncPointTable load() {
          return SyncPointTable.empty(-1);
        }

        @Override
        public void save(SyncPointTable table) {}

        @Override
        public void close() {}
      };
}
