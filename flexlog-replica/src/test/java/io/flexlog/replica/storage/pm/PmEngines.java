package io.flexlog.replica.storage.pm;

import io.flexlog.replica.storage.DurabilityMode;
import java.nio.file.Path;

/** Test access to the engines' options that production code sets from the environment. */
public final class PmEngines {
  private PmEngines() {}

  /**
   * Opens an llpl log; {@code directViews == false} forces the array-copy fallback and {@code
   * pmemForce} stands in for {@code PMEM_IS_PMEM_FORCE}.
   */
  public static LlplLogStorage llpl(
      Path dir,
      long capacityBytes,
      long chunkBytes,
      DurabilityMode mode,
      boolean directViews,
      String pmemForce) {
    return LlplLogStorage.open(dir, capacityBytes, chunkBytes, mode, directViews, pmemForce);
  }
}
