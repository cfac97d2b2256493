package io.flexlog.bench.consume;

import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/** The embedded cluster the benchmarks' tests run against: mapped logs of 32 MiB. */
public final class SmallDevCluster {
  private SmallDevCluster() {}

  public static DevCluster start(Path dir) throws Exception {
    return DevCluster.start(
        new DevCluster.Options(
            dir,
            FreePorts.consecutive(4),
            StorageEngines.MAPPED,
            DurabilityMode.PROCESS,
            32L << 20),
        new SimpleMeterRegistry(),
        new PrintStream(new ByteArrayOutputStream()));
  }
}
