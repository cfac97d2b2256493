package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.pm.LlplLogStorage;
import java.util.Locale;
import java.util.Optional;

/**
 * Which FlexLog engine a storage benchmark runs, given what the user asked for and what this
 * process can honour. llpl's durability depends on {@code PMEM_IS_PMEM_FORCE}, read once per
 * process: {@code process} needs it set to 1 ({@code bin/flexlog} does that), {@code fsync} and
 * {@code pmem} need it unset (else libpmem would skip the msync). {@code auto} falls back to the
 * mapped-file engine with a notice, as the replica does; an explicit {@code llpl} that cannot work
 * is an error. {@code tiered} is the replica's tiered engine over the PM engine {@code auto} picks.
 *
 * @param engine the PM engine: {@code llpl} or {@code mapped}
 * @param tiered true for the tiered engine (cache and SSD segments around {@code engine})
 * @param notice why {@code auto} (or {@code tiered}) chose {@code mapped}, if it did
 */
public record EngineChoice(String engine, boolean tiered, Optional<String> notice) {
  public static final String AUTO = "auto";
  public static final String TIERED = "tiered";

  /**
   * @param llplUnavailable why llpl cannot load here, or null when it can
   * @param pmemForce the value of {@code PMEM_IS_PMEM_FORCE}, or null when unset
   * @throws IllegalArgumentException naming the option and the problem
   */
  public static EngineChoice resolve(
      String requested, DurabilityMode mode, String llplUnavailable, String pmemForce) {
    String name = requested.trim().toLowerCase(Locale.ROOT);
    boolean forced = "1".equals(pmemForce);
    String envProblem = environmentProblem(mode, forced);
    EngineChoice choice;
    if (AUTO.equals(name) || TIERED.equals(name)) {
      boolean tiered = TIERED.equals(name);
      if (llplUnavailable != null) {
        choice = mapped(tiered, "llpl unavailable: " + llplUnavailable);
      } else if (envProblem != null) {
        choice = mapped(tiered, envProblem);
      } else {
        choice = new EngineChoice(StorageEngines.LLPL, tiered, Optional.empty());
      }
    } else if (StorageEngines.LLPL.equals(name)) {
      if (llplUnavailable != null) {
        throw new IllegalArgumentException("--engine llpl: " + llplUnavailable);
      }
      if (envProblem != null) {
        throw new IllegalArgumentException("--engine llpl: " + envProblem);
      }
      choice = new EngineChoice(StorageEngines.LLPL, false, Optional.empty());
    } else if (StorageEngines.MAPPED.equals(name)) {
      choice = new EngineChoice(StorageEngines.MAPPED, false, Optional.empty());
    } else {
      throw new IllegalArgumentException(
          "--engine must be auto, llpl, mapped or tiered, got '" + requested + "'");
    }
    if (mode == DurabilityMode.PMEM && StorageEngines.MAPPED.equals(choice.engine())) {
      throw new IllegalArgumentException(
          "--durability pmem needs the llpl engine on a DAX-mounted PM file system; the mapped"
              + " engine cannot provide it"
              + choice.notice().map(n -> " (" + n + ")").orElse(""));
    }
    return choice;
  }

  /** The choice for this process: llpl's availability and the environment variable. */
  public static EngineChoice resolveHere(String requested, DurabilityMode mode) {
    return resolve(
        requested,
        mode,
        LlplLogStorage.unavailableReason(),
        System.getenv(LlplLogStorage.PMEM_FORCE_ENV));
  }

  private static String environmentProblem(DurabilityMode mode, boolean forced) {
    if (mode == DurabilityMode.PROCESS && !forced) {
      return "durability process on llpl needs "
          + LlplLogStorage.PMEM_FORCE_ENV
          + "=1 in the environment (bin/flexlog sets it)";
    }
    if (mode != DurabilityMode.PROCESS && forced) {
      return "durability "
          + mode.configName()
          + " on llpl needs "
          + LlplLogStorage.PMEM_FORCE_ENV
          + " unset (bin/flexlog unsets it for --durability fsync or pmem), or libpmem would skip"
          + " the msync";
    }
    return null;
  }

  private static EngineChoice mapped(boolean tiered, String reason) {
    return new EngineChoice(
        StorageEngines.MAPPED,
        tiered,
        Optional.of(
            (tiered ? "tiered engine's PM engine" : "FlexLog engine")
                + " 'mapped' instead of 'llpl': "
                + reason));
  }
}
