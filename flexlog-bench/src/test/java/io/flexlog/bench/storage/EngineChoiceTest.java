package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.storage.DurabilityMode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EngineChoiceTest {
  private static final String NO_LLPL = "llpl cannot load libpmemobj";

  @Test
  void shouldPickLlplWhenItCanHonourTheMode() {
    assertThat(EngineChoice.resolve("auto", DurabilityMode.PROCESS, null, "1"))
        .isEqualTo(new EngineChoice("llpl", false, Optional.empty()));
    assertThat(EngineChoice.resolve("auto", DurabilityMode.FSYNC, null, null))
        .isEqualTo(new EngineChoice("llpl", false, Optional.empty()));
    assertThat(EngineChoice.resolve(" LLPL ", DurabilityMode.FSYNC, null, "0").engine())
        .isEqualTo("llpl");
  }

  @Test
  void shouldFallBackToMappedWithTheReasonWhenAutoCannotUseLlpl() {
    EngineChoice missing = EngineChoice.resolve("auto", DurabilityMode.PROCESS, NO_LLPL, "1");
    EngineChoice processUnforced = EngineChoice.resolve("auto", DurabilityMode.PROCESS, null, null);
    EngineChoice fsyncForced = EngineChoice.resolve("auto", DurabilityMode.FSYNC, null, "1");

    assertThat(missing.engine()).isEqualTo("mapped");
    assertThat(missing.notice()).hasValueSatisfying(n -> assertThat(n).contains(NO_LLPL));
    assertThat(processUnforced.engine()).isEqualTo("mapped");
    assertThat(processUnforced.notice())
        .hasValueSatisfying(n -> assertThat(n).contains("PMEM_IS_PMEM_FORCE=1"));
    assertThat(fsyncForced.engine()).isEqualTo("mapped");
    assertThat(fsyncForced.notice())
        .hasValueSatisfying(n -> assertThat(n).contains("skip the msync"));
  }

  @Test
  void shouldRefuseAnExplicitLlplThatCannotWork() {
    assertThatThrownBy(() -> EngineChoice.resolve("llpl", DurabilityMode.PROCESS, NO_LLPL, "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--engine llpl: " + NO_LLPL);
    assertThatThrownBy(() -> EngineChoice.resolve("llpl", DurabilityMode.PROCESS, null, null))
        .hasMessageContaining("--engine llpl: durability process on llpl needs");
    assertThatThrownBy(() -> EngineChoice.resolve("llpl", DurabilityMode.FSYNC, null, "1"))
        .hasMessageContaining("--engine llpl: durability fsync on llpl needs");
  }

  @Test
  void shouldTakeMappedWhateverTheEnvironment() {
    assertThat(EngineChoice.resolve("mapped", DurabilityMode.FSYNC, NO_LLPL, "1"))
        .isEqualTo(new EngineChoice("mapped", false, Optional.empty()));
  }

  @Test
  void shouldPickTieredOverThePmEngineAutoWouldPick() {
    assertThat(EngineChoice.resolve("tiered", DurabilityMode.PROCESS, null, "1"))
        .isEqualTo(new EngineChoice("llpl", true, Optional.empty()));
    EngineChoice fallback = EngineChoice.resolve("Tiered", DurabilityMode.PROCESS, NO_LLPL, "1");
    assertThat(fallback.engine()).isEqualTo("mapped");
    assertThat(fallback.tiered()).isTrue();
    assertThat(fallback.notice())
        .hasValueSatisfying(
            n -> assertThat(n).contains("tiered engine's PM engine 'mapped'").contains(NO_LLPL));
    assertThat(EngineChoice.resolve("mapped", DurabilityMode.PROCESS, null, "1").tiered())
        .isFalse();
  }

  @Test
  void shouldRefusePmemWithoutLlpl() {
    assertThatThrownBy(() -> EngineChoice.resolve("mapped", DurabilityMode.PMEM, null, null))
        .hasMessageContaining("--durability pmem needs the llpl engine");
    assertThatThrownBy(() -> EngineChoice.resolve("auto", DurabilityMode.PMEM, NO_LLPL, null))
        .hasMessageContaining("--durability pmem needs the llpl engine")
        .hasMessageContaining(NO_LLPL);
  }

  @Test
  void shouldRefuseUnknownEngines() {
    assertThatThrownBy(() -> EngineChoice.resolve("rocksdb", DurabilityMode.PROCESS, null, "1"))
        .hasMessage("--engine must be auto, llpl, mapped or tiered, got 'rocksdb'");
  }
}
