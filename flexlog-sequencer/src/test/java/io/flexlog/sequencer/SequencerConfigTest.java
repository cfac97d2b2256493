package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SequencerConfigTest {
  private static SequencerConfig.Builder valid() {
    return SequencerConfig.builder().nodeId(0).dataDir(Path.of("data"));
  }

  @Test
  void shouldApplyDefaultsToUnsetKeys() {
    SequencerConfig config = valid().build();

    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.port()).isZero();
    assertThat(config.dedupWindow()).isEqualTo(1 << 20);
    assertThat(config.maxFrameBytes()).isEqualTo((64 << 20) + 16);
    assertThat(config.maxRecordBytes()).isEqualTo(1 << 20);
  }

  @Test
  void shouldNameTheKeyOfAnInvalidValue() {
    assertThatThrownBy(() -> valid().port(70000).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sequencer.port must be in [0, 65535], got 70000");
    assertThatThrownBy(() -> valid().dedupWindow(0).build())
        .hasMessageStartingWith(SequencerConfig.DEDUP_WINDOW);
    assertThatThrownBy(() -> valid().maxFrameBytes(16).build())
        .hasMessageStartingWith(SequencerConfig.MAX_FRAME_BYTES);
    assertThatThrownBy(() -> valid().host(" ").build())
        .hasMessageStartingWith(SequencerConfig.HOST);
    assertThatThrownBy(() -> SequencerConfig.builder().dataDir(Path.of("d")).build())
        .hasMessage("sequencer.node.id is required");
    assertThatThrownBy(() -> SequencerConfig.builder().nodeId(1).build())
        .hasMessage("sequencer.data.dir is required");
  }
}
