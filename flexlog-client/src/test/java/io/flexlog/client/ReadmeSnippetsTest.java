package io.flexlog.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
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
 * Compiles every {@code java} block of the repository's README against the client, so that the
 * examples a user copies keep compiling when the API changes. A block's import lines go to the top
 * of a class; the rest becomes the body of a method that may throw.
 */
class ReadmeSnippetsTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

  @TempDir Path classes;

  @Test
  void shouldCompileEveryJavaSnippetOfTheReadme() throws IOException {
    List<JavaFileObject> sources = new ArrayList<>();
    Matcher block = JAVA_BLOCK.matcher(Files.readString(readme()));
    while (block.find()) {
      sources.add(source("ReadmeSnippet" + sources.size(), block.group(1)));
    }
    assertThat(sources).as("java blocks in README.md").isNotEmpty();

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    boolean compiled;
    try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null, null)) {
      files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
      files.setLocation(StandardLocation.CLASS_PATH, classPath());
      compiled =
          compiler.getTask(null, files, diagnostics, List.of("-proc:none"), null, sources).call();
    }

    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors.add(
            d.getSource().getName() + ":" + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
      }
    }
    assertThat(errors).as("compiler errors in README snippets").isEmpty();
    assertThat(compiled).isTrue();
  }

  private static Path readme() {
    Path path = Path.of("../README.md");
    return Files.exists(path) ? path : Path.of("README.md");
  }

  /** The test class path: surefire's property when it runs through a manifest-only jar. */
  private static List<File> classPath() {
    String path = System.getProperty("surefire.test.class.path");
    if (path == null || path.isBlank()) {
      path = System.getProperty("java.class.path");
    }
    List<File> entries = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        entries.add(new File(entry));
      }
    }
    return entries;
  }

  private static JavaFileObject source(String className, String snippet) {
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String line : snippet.split("\n", -1)) {
      (line.startsWith("import ") ? imports : body).append(line).append('\n');
    }
    String code =
        imports
            + "\nclass "
            + className
            + " {\n  void run() throws Exception {\n"
            + body
            + "  }\n}\n";
    return new SimpleJavaFileObject(
        URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return code;
      }
    };
  }
}
