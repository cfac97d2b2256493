package io.flexlog.core.model;

/**
 * Records and bytes a replica's storage holds in each tier (docs/operations.md#status): the DRAM
 * record cache, the persistent-memory log and the SSD segment files. Counts include entries that
 * are trimmed but whose chunk or segment is not freed yet; the cache holds copies of records that
 * are also in PM or on SSD. An engine without a cache or an SSD tier reports 0 there.
 *
 * @param cacheRecords records in the DRAM cache
 * @param cacheBytes payload bytes in the DRAM cache (its blocks in use)
 * @param pmRecords entries in PM chunks that are not free
 * @param pmBytes PM log space in use, entry headers included
 * @param pmCapacityBytes PM log capacity
 * @param ssdRecords entries in SSD segment files
 * @param ssdBytes bytes of SSD segment files
 * @param ssdSegments SSD segment files
 */
public record TierUsage(
    long cacheRecords,
    long cacheBytes,
    long pmRecords,
    long pmBytes,
    long pmCapacityBytes,
    long ssdRecords,
    long ssdBytes,
    int ssdSegments) {
  public TierUsage {
    if (cacheRecords < 0
        || cacheBytes < 0
        || pmRecords < 0
        || pmBytes < 0
        || pmCapacityBytes < 0
        || ssdRecords < 0
        || ssdBytes < 0
        || ssdSegments < 0) {
      throw new IllegalArgumentException("tier usage counts must be >= 0, got " + fields(this));
    }
  }

  private static String fields(TierUsage u) {
    return "cache "
        + u.cacheRecords
        + "/"
        + u.cacheBytes
        + " pm "
        + u.pmRecords
        + "/"
        + u.pmBytes
        + "/"
        + u.pmCapacityBytes
        + " ssd "
        + u.ssdRecords
        + "/"
        + u.ssdBytes
        + "/"
        + u.ssdSegments;
  }
}
