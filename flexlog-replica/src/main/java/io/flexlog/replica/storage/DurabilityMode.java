package io.flexlog.replica.storage;

import java.util.Locale;

/**
 * What an acknowledged entry survives (docs/architecture.md#storage). Every benchmark names the
 * mode it ran in.
 *
 * <ul>
 *   <li>{@link #PMEM}: flushed to the persistence domain. On real PM/DAX that is the CPU cache
 *       flush; on a plain file libpmem falls back to {@code msync}. Survives a machine crash.
 *   <li>{@link #PROCESS}: written into a shared mapping (llpl with {@code PMEM_IS_PMEM_FORCE=1}, or
 *       a mapped file with no sync). Survives a crash of the process, not of the machine;
 *       replication covers machine loss, as with Kafka's default of not fsyncing.
 *   <li>{@link #FSYNC}: {@code msync}/{@code force} of the written range before acknowledging.
 *       Survives a machine crash.
 * </ul>
 */
public enum DurabilityMode {
  PMEM,
  PROCESS,
  FSYNC;

  public static DurabilityMode parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown durability mode '" + value + "': expected pmem, process or fsync");
    }
  }

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
