package io.flexlog.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles each {@code java} block of docs/spring-boot.md, a whole source file with its imports,
 * against the starter and Spring, so that the page's example keeps compiling.
 */
class SpringBootDocTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern CLASS_NAME = Pattern.compile("(?m)^(?:public )?class (\\w+)");

  @TempDir Path classes;

  @Test
  void shouldCompileTheJavaOfTheSpringBootPage() throws Exception {
    Path page = Path.of("../docs/spring-boot.md");
    Matcher block = JAVA_BLOCK.matcher(Files.readString(page));
    List<JavaFileObject> sources = new ArrayList<>();
    while (block.find()) {
      String code = block.group(1);
      Matcher name = CLASS_NAME.matcher(code);
      assertThat(name.find()).as("a class in block %d", sources.size()).isTrue();
      sources.add(
          new SimpleJavaFileObject(
              URI.create("string:///" + name.group(1) + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return code;
            }
          });
    }
    assertThat(sources).as("java blocks in " + page).isNotEmpty();

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    boolean compiled;
    try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null, null)) {
      files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
      String path = System.getProperty("surefire.test.class.path", "");
      if (path.isBlank()) {
        path = System.getProperty("java.class.path");
      }
      List<File> entries = new ArrayList<>();
      for (String entry : path.split(File.pathSeparator)) {
        entries.add(new File(entry));
      }
      files.setLocation(StandardLocation.CLASS_PATH, entries);
      compiled =
          compiler.getTask(null, files, diagnostics, List.of("-proc:none"), null, sources).call();
    }
    assertThat(diagnostics.getDiagnostics()).as("compiler messages").isEmpty();
    assertThat(compiled).isTrue();
  }
}
