package io.flexlog.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code docs/configuration.md} is generated from the registries and must be current. */
class ConfigurationDocTest {
  private static final Path DOC = Path.of("..", "docs", "configuration.md");

  @Test
  void shouldMatchTheCommittedReference() throws Exception {
    String rendered = ConfigurationDoc.render();
    if (Boolean.getBoolean("flexlog.docs.regenerate")) {
      ConfigurationDoc.main(new String[] {DOC.toString()});
    }
    String committed =
        Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "(missing)";
    assertThat(committed)
        .as(
            "docs/configuration.md is stale: it differs from the config registries. Regenerate it"
                + " from the repository root with:%n  %s%n",
            ConfigurationDoc.REGENERATE)
        .isEqualTo(rendered);
  }

  @Test
  void shouldListEveryKeyOfEveryRegistry() {
    String rendered = ConfigurationDoc.render();
    for (var def :
        java.util.List.of(
            io.flexlog.client.ClientConfigDef.DEF, ClusterFileDef.CLUSTER, ClusterFileDef.NODE)) {
      def.keys().forEach(key -> assertThat(rendered).contains("| `" + key.name() + "` |"));
    }
  }
}
