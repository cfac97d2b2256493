package io.flexlog.replica.storage.pm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TestPayloads;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageEnginesTest {
  @TempDir Path dir;

  @Test
  void shouldNameTheEnginesWhenTheEngineIsUnknown() {
    assertThatThrownBy(
            () -> StorageEngines.open("rocks", dir, 1 << 20, 65536, DurabilityMode.FSYNC))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("unknown storage engine 'rocks'")
        .hasMessageContaining("llpl or mapped");
  }

  @Test
  void shouldRejectCapacitySmallerThanOneChunk() {
    assertThatThrownBy(
            () -> StorageEngines.open("mapped", dir, 32768, 65536, DurabilityMode.PROCESS))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("smaller than one chunk");
  }

  @Test
  void shouldRejectChunkSizesThatAreNotPageMultiples() {
    assertThatThrownBy(
            () -> StorageEngines.open("mapped", dir, 1 << 20, 10_000, DurabilityMode.PROCESS))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("chunk size 10000 must be a multiple of 4096");
  }

  @Test
  void shouldRejectPmemDurabilityOnTheMappedEngine() {
    assertThatThrownBy(
            () -> StorageEngines.open("mapped", dir, 1 << 20, 65536, DurabilityMode.PMEM))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("cannot provide pmem durability");
  }

  @Test
  void shouldOpenTheMappedEngineByNameWithItsChunkFiles() {
    try (LogStorage log =
        StorageEngines.open(" Mapped ", dir, 4 * 65536, 65536, DurabilityMode.FSYNC)) {
      assertThat(log.engineName()).isEqualTo("mapped");
      assertThat(log.durability()).isEqualTo(DurabilityMode.FSYNC);
      assertThat(log.capacityBytes()).isEqualTo(4 * 65536);
      assertThat(log.usedBytes()).isZero();
    }
    assertThat(Files.exists(dir.resolve("chunk-000003.log"))).isTrue();
    assertThat(Files.exists(dir.resolve("chunk-000004.log"))).isFalse();
  }

  @Test
  void shouldRejectAMappedChunkFileOfTheWrongSize() throws Exception {
    StorageEngines.open("mapped", dir, 2 * 65536, 65536, DurabilityMode.PROCESS).close();

    assertThatThrownBy(
            () -> StorageEngines.open("mapped", dir, 2 * 131072, 131072, DurabilityMode.PROCESS))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining(
            "chunk-000000.log is 65536 bytes, expected the configured chunk size");
  }

  @Test
  void shouldRejectAFileThatIsNotAFlexLogChunk() throws Exception {
    Files.write(dir.resolve("chunk-000000.log"), new byte[65536]);

    assertThatThrownBy(() -> StorageEngines.open("mapped", dir, 65536, 65536, DurabilityMode.FSYNC))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("chunk 0 is not a FlexLog chunk");
  }

  @Test
  void shouldDefaultToLlplWhenItIsAvailableAndExplainOtherwise() {
    if (LlplLogStorage.isAvailable()) {
      assertThat(StorageEngines.defaultEngine()).isEqualTo("llpl");
      assertThat(StorageEngines.fallbackNotice()).isNull();
    } else {
      assertThat(StorageEngines.defaultEngine()).isEqualTo("mapped");
      assertThat(StorageEngines.fallbackNotice()).contains(LlplLogStorage.unavailableReason());
    }
  }

  @Test
  void shouldRequirePmemForceForProcessDurabilityOnLlpl() {
    assertThatThrownBy(() -> LlplLogStorage.checkEnvironment(DurabilityMode.PROCESS, null))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("requires the environment variable PMEM_IS_PMEM_FORCE=1")
        .hasMessageContaining("found unset");
    assertThatThrownBy(() -> LlplLogStorage.checkEnvironment(DurabilityMode.PROCESS, "0"))
        .hasMessageContaining("found '0'");
    LlplLogStorage.checkEnvironment(DurabilityMode.PROCESS, "1");
  }

  @Test
  void shouldRefusePmemAndFsyncOnLlplWhenPmemForceWouldDowngradeThem() {
    for (DurabilityMode mode : new DurabilityMode[] {DurabilityMode.PMEM, DurabilityMode.FSYNC}) {
      assertThatThrownBy(() -> LlplLogStorage.checkEnvironment(mode, "1"))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("durability " + mode.configName())
          .hasMessageContaining("PMEM_IS_PMEM_FORCE is not 1");
      LlplLogStorage.checkEnvironment(mode, null);
    }
  }

  @Test
  void shouldFailLlplFsyncInThisTestJvmBecauseSurefireForcesPmem() {
    assumeTrue(LlplLogStorage.isAvailable(), "llpl unavailable");
    assumeTrue("1".equals(System.getenv("PMEM_IS_PMEM_FORCE")), "PMEM_IS_PMEM_FORCE not set");

    assertThatThrownBy(
            () -> StorageEngines.open("llpl", dir, 16 << 20, 1 << 20, DurabilityMode.FSYNC))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("PMEM_IS_PMEM_FORCE is not 1");
  }

  @Test
  void shouldExplainWhenAnLlplHeapHasNoRoomForAChunk() {
    assumeTrue(LlplLogStorage.isAvailable(), "llpl unavailable");

    assertThatThrownBy(
            () -> StorageEngines.open("llpl", dir, 8 << 20, 4 << 20, DurabilityMode.PROCESS))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("has no room for one chunk");
  }

  @Test
  void shouldRejectReopeningAnLlplHeapWithAnotherChunkSize() {
    assumeTrue(LlplLogStorage.isAvailable(), "llpl unavailable");
    StorageEngines.open("llpl", dir, 16 << 20, 1 << 20, DurabilityMode.PROCESS).close();

    assertThatThrownBy(
            () -> StorageEngines.open("llpl", dir, 16 << 20, 2 << 20, DurabilityMode.PROCESS))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("was created with chunks of 1048576 bytes");
  }

  @Test
  void shouldRefusePmemDurabilityOnLlplOutsideADaxMount() {
    String mounts =
        "/dev/vda1 / ext4 rw,relatime 0 0\n"
            + "/dev/pmem0 /mnt/pmem ext4 rw,relatime,dax=always 0 0\n"
            + "tmpfs /mnt/pmem/tmp tmpfs rw 0 0\n";

    LlplLogStorage.checkDaxMount(Path.of("/mnt/pmem/flexlog"), mounts);
    assertThatThrownBy(() -> LlplLogStorage.checkDaxMount(Path.of("/var/flexlog"), mounts))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("durability pmem needs the llpl heap on a DAX-mounted")
        .hasMessageContaining("is on / (options rw,relatime)");
    assertThatThrownBy(() -> LlplLogStorage.checkDaxMount(Path.of("/mnt/pmem/tmp/x"), mounts))
        .hasMessageContaining("is on /mnt/pmem/tmp (options rw)");
  }

  /**
   * fsync mode must msync what it flushes. Reading the file back cannot show it (the page cache
   * serves the bytes either way), so this asks the kernel: {@code /proc/self/smaps} counts the
   * dirty pages of every mapping of the heap file, and {@code msync(MS_SYNC)} writes them back and
   * cleans them in every mapping of the file. Without the msync the ~30 KiB appended stay dirty
   * (the kernel's own writeback waits 30 s).
   */
  @Test
  void shouldLeaveNoDirtyPageOfTheHeapFileAfterAFlushInFsyncMode() throws Exception {
    assumeTrue(LlplLogStorage.isAvailable(), "llpl unavailable");
    Path heap = dir.resolve(LlplLogStorage.HEAP_FILE);
    try (LlplLogStorage log =
        LlplLogStorage.open(dir, 16 << 20, 1 << 20, DurabilityMode.FSYNC, true, null)) {
      assumeTrue(dirtyKib(heap) >= 0, "no /proc/self/smaps");
      try (java.nio.channels.FileChannel file =
          java.nio.channels.FileChannel.open(heap, java.nio.file.StandardOpenOption.WRITE)) {
        file.force(true); // a clean start: creating the heap dirtied most of it
      }
      long before = dirtyKib(heap);
      for (int i = 0; i < 10; i++) {
        byte[] payload = TestPayloads.bytes(42 + i, 3000);
        log.appendPending(1, 2, 3, 4 + i, io.netty.buffer.Unpooled.wrappedBuffer(payload));
      }
      long written = dirtyKib(heap);
      log.flush();
      long after = dirtyKib(heap);

      assertThat(written - before).as("KiB dirtied by the appends").isGreaterThanOrEqualTo(28);
      assertThat(after).as("dirty KiB of the heap file after flush").isLessThanOrEqualTo(before);
    }
  }

  /** Dirty KiB over every mapping of {@code file} in this process, or -1 without smaps. */
  private static long dirtyKib(Path file) throws java.io.IOException {
    Path smaps = Path.of("/proc/self/smaps");
    if (!Files.isReadable(smaps)) {
      return -1;
    }
    String name = file.toRealPath().toString();
    long kib = 0;
    boolean inFile = false;
    for (String line : Files.readAllLines(smaps)) {
      if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) { // a mapping's header line
        inFile = line.endsWith(name);
      } else if (inFile
          && (line.startsWith("Shared_Dirty:") || line.startsWith("Private_Dirty:"))) {
        kib += Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return kib;
  }
}
