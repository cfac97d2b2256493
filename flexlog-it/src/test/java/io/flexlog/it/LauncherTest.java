package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/flexlog} rebuilds when a source of the modules it runs is newer than its jar, and
 * otherwise runs the jar as it is; it starts short-lived commands with the C1 compiler alone. Runs
 * the real script in a copy of the checkout's layout, with a fake {@code mvn} (records that it ran,
 * "builds" by touching the jar) and a fake {@code java}.
 */
class LauncherTest {
  private static final Instant BUILT = Instant.parse("2026-01-02T00:00:00Z");
  private static final Map<String, String> NO_CDS = Map.of("FLEXLOG_CDS", "0");

  @TempDir Path home;
  private Path jar;
  private Path source;
  private Path tools;

  @BeforeEach
  void layout() throws IOException {
    Path script = Path.of("").toAbsolutePath().getParent().resolve("bin").resolve("flexlog");
    Files.createDirectories(home.resolve("bin"));
    Files.copy(script, home.resolve("bin/flexlog"));
    executable(home.resolve("bin/flexlog"));
    Files.createDirectories(home.resolve("flexlog-bench/target/lib"));
    jar = Files.createFile(home.resolve("flexlog-bench/target/flexlog-bench-0.1.0-SNAPSHOT.jar"));
    Files.setLastModifiedTime(jar, FileTime.from(BUILT));
    source = home.resolve("flexlog-replica/src/main/java/io/flexlog/replica/Some.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "class Some {}");
    Files.setLastModifiedTime(source, FileTime.from(BUILT.minusSeconds(60)));
    Path test = home.resolve("flexlog-replica/src/test/java/SomeTest.java");
    Files.createDirectories(test.getParent());
    Files.writeString(test, "class SomeTest {}");
    tools = Files.createDirectories(home.resolve("tools"));
    Files.createDirectories(tools.resolve("bin"));
    Files.writeString(
        tools.resolve("bin/mvn"),
        "#!/bin/sh\necho mvn \"$@\" >> \"$FAKE_LOG\"\ntouch " + jar + "\n");
    Files.writeString(
        tools.resolve("bin/java"),
        """
        #!/bin/sh
        echo java ran >> "$FAKE_LOG"
        echo "$@" > "$FAKE_LOG.args"
        for arg in "$@"; do
          case "$arg" in -XX:ArchiveClassesAtExit=*) echo archive > "${arg#*=}" ;; esac
        done
        exit "${FAKE_EXIT:-0}"
        """);
    executable(tools.resolve("bin/mvn"));
    executable(tools.resolve("bin/java"));
  }

  @Test
  void shouldRunTheJarWithoutBuildingWhenNoSourceIsNewer() throws Exception {
    List<String> result = run(Map.of());
    assertThat(log()).containsExactly("java ran");
    assertThat(result.get(1)).doesNotContain("building");
  }

  @Test
  void shouldRebuildWhenAMainSourceIsNewerThanTheJarAndNameIt() throws Exception {
    Files.setLastModifiedTime(source, FileTime.from(BUILT.plusSeconds(60)));
    List<String> result = run(Map.of());
    assertThat(log()).hasSize(2);
    assertThat(log().get(0)).startsWith("mvn ").contains("package");
    assertThat(log().get(1)).isEqualTo("java ran");
    assertThat(result.get(1)).contains(source.toString()).contains("is newer than " + jar);
  }

  @Test
  void shouldWarnAndRunTheStaleJarWithoutMaven() throws Exception {
    Files.setLastModifiedTime(source, FileTime.from(BUILT.plusSeconds(60)));
    List<String> result = run(Map.of("FLEXLOG_NO_REBUILD", "1"));
    assertThat(log()).containsExactly("java ran");
    assertThat(result.get(1))
        .contains("warning: " + jar + " is older than " + source)
        .contains("mvn -B -DskipTests package");
  }

  @Test
  void shouldStartShortLivedCommandsWithTheC1CompilerAloneUnlessTheOptionsAreGiven()
      throws Exception {
    for (String command : List.of("status", "describe", "colors", "groups", "read", "trim")) {
      run(NO_CDS, command, "--bootstrap", "127.0.0.1:7070");
      assertThat(javaArgs()).as(command).startsWith("-Xms256m -Xmx1g -XX:TieredStopAtLevel=1 ");
    }
    run(NO_CDS, "append", "--color", "global", "a", "b");
    assertThat(javaArgs()).as("append of values").contains("-XX:TieredStopAtLevel=1 ");
    for (String command : List.of("dev", "replica", "sequencer", "tail", "bench")) {
      run(NO_CDS, command);
      assertThat(javaArgs()).as(command).startsWith("-Xms256m -Xmx1g -XX:+UseG1GC ");
    }
    for (String file : List.of("--file", "--file=-")) {
      run(NO_CDS, "append", "--color", "global", file, "-");
      assertThat(javaArgs()).as("append " + file).startsWith("-Xms256m -Xmx1g -XX:+UseG1GC ");
    }
    run(Map.of("FLEXLOG_JAVA_OPTS", "-Xmx4g"), "status");
    assertThat(javaArgs()).startsWith("-Xmx4g -XX:+UseG1GC ").doesNotContain("TieredStopAtLevel");
  }

  @Test
  void shouldShareTheClassesOfAShortCommandWithEveryLaterCommandOfTheSameBuild() throws Exception {
    Path archive = home.resolve("flexlog-bench/target/flexlog-cli.jsa");
    run(Map.of(), "dev");
    assertThat(javaArgs()).doesNotContain("-XX:SharedArchiveFile").doesNotContain("Archive");
    assertThat(archive).doesNotExist();

    List<String> result = run(Map.of("FAKE_EXIT", "3"), "status");
    assertThat(result.get(0)).as("the command's own exit code").isEqualTo("3");
    assertThat(javaArgs()).contains("-XX:ArchiveClassesAtExit=" + archive + ".", "-Xlog:cds*=off");
    assertThat(archive).exists();
    try (var files = Files.list(archive.getParent())) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("no temporary archive is left")
          .containsExactlyInAnyOrder("lib", "flexlog-bench-0.1.0-SNAPSHOT.jar", "flexlog-cli.jsa");
    }

    for (String command : List.of("dev", "status", "tail")) {
      run(Map.of(), command);
      assertThat(javaArgs())
          .as(command)
          .contains("-XX:SharedArchiveFile=" + archive + " -Xlog:cds*=off ")
          .doesNotContain("ArchiveClassesAtExit");
    }
    run(Map.of("FLEXLOG_CDS", "0"), "dev");
    assertThat(javaArgs()).doesNotContain("SharedArchiveFile");
    run(Map.of("FLEXLOG_JAVA_OPTS", "-Xmx4g"), "dev");
    assertThat(javaArgs()).doesNotContain("SharedArchiveFile");

    Path dependency = home.resolve("flexlog-bench/target/lib/dependency.jar");
    Files.writeString(dependency, "jar");
    Files.setLastModifiedTime(
        dependency, FileTime.from(Files.getLastModifiedTime(archive).toInstant().plusSeconds(5)));
    run(Map.of(), "dev");
    assertThat(javaArgs()).as("a jar newer than the archive").doesNotContain("SharedArchiveFile");
    run(Map.of(), "colors", "list");
    assertThat(javaArgs()).as("written again").contains("-XX:ArchiveClassesAtExit=");
  }

  /** Runs {@code bin/flexlog -V}; returns the exit code and stderr. */
  private List<String> run(Map<String, String> env) throws Exception {
    return run(env, "-V");
  }

  /** Runs {@code bin/flexlog ARGS}; returns the exit code and stderr. */
  private List<String> run(Map<String, String> env, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>();
    command.add("bash");
    command.add(home.resolve("bin/flexlog").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(home.resolve("out.txt").toFile())
            .redirectError(home.resolve("err.txt").toFile());
    builder.environment().put("PATH", tools.resolve("bin") + ":/usr/bin:/bin");
    builder.environment().put("JAVA_HOME", tools.toString());
    builder.environment().put("FAKE_LOG", home.resolve("fake.log").toString());
    builder.environment().remove("FLEXLOG_REBUILD");
    builder.environment().remove("FLEXLOG_JAVA_OPTS");
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return List.of(
        Integer.toString(process.exitValue()),
        Files.readString(home.resolve("err.txt"), StandardCharsets.UTF_8));
  }

  /** The arguments the fake {@code java} was last started with. */
  private String javaArgs() throws IOException {
    return Files.readString(home.resolve("fake.log.args"), StandardCharsets.UTF_8).strip();
  }

  private List<String> log() throws IOException {
    Path log = home.resolve("fake.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  private static void executable(Path file) throws IOException {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
