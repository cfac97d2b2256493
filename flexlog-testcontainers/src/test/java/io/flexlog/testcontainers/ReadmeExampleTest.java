package io.flexlog.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's Testcontainers example is {@code example/OrdersLogIT}, which the container tests
 * run: this keeps the two the same, and the example's image tag the one this build makes.
 */
class ReadmeExampleTest {
  private static final Pattern BLOCK =
      Pattern.compile("```java testcontainers\\n(.*?)```", Pattern.DOTALL);
  private static final Path EXAMPLE =
      Path.of("src/test/java/io/flexlog/testcontainers/example/OrdersLogIT.java");

  @Test
  void shouldShowTheExampleThatTheContainerTestsRun() throws IOException {
    List<String> blocks = new ArrayList<>();
    Matcher matcher = BLOCK.matcher(Files.readString(Path.of("../README.md")));
    while (matcher.find()) {
      blocks.add(matcher.group(1));
    }
    String source = Files.readString(EXAMPLE);
    String withoutPackage = source.substring(source.indexOf('\n', source.indexOf("package ")) + 2);

    assertThat(blocks)
        .as("```java testcontainers blocks in README.md")
        .containsExactly(withoutPackage);
    assertThat(withoutPackage).contains("\"" + System.getProperty("flexlog.image") + "\"");
  }
}
