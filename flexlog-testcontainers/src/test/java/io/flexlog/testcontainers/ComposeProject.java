package io.flexlog.testcontainers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One project of docker/compose.yaml, driven through the Compose command line ({@code docker
 * compose} or, where that plugin is missing, {@code docker-compose}); its containers, volumes and
 * name are its own, so it never touches another project.
 */
final class ComposeProject {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private final List<String> compose;
  private final Path file;
  private final String name;
  private final Map<String, String> env;

  private ComposeProject(List<String> compose, Path file, String name, String image) {
    this.compose = compose;
    this.file = file;
    this.name = name;
    this.env = Map.of("FLEXLOG_IMAGE", image);
  }

  /**
   * The project {@code name} of {@code file} running {@code image}.
   *
   * @throws IllegalStateException when no Compose command line is installed
   */
  static ComposeProject of(Path file, String name, String image) {
    return new ComposeProject(composeCommand(), file, name, image);
  }

  /** {@code docker compose} or {@code docker-compose}, whichever runs. */
  static List<String> composeCommand() {
    if (Commands.succeeds(List.of("docker", "compose", "version"))) {
      return List.of("docker", "compose");
    }
    if (Commands.succeeds(List.of("docker-compose", "version"))) {
      return List.of("docker-compose");
    }
    throw new IllegalStateException(
        "neither 'docker compose' nor 'docker-compose' runs here (.ci/run installs docker-compose)");
  }

  Commands.Result run(String... args) {
    List<String> command = new ArrayList<>(compose);
    command.addAll(List.of("--project-name", name, "--file", file.toString()));
    command.addAll(List.of(args));
    return Commands.run(TIMEOUT, env, command);
  }

  /** The id of the container of {@code service}. */
  String containerId(String service) {
    String id = run("ps", "-q", service).check().output().trim();
    if (id.isEmpty() || id.contains("\n")) {
      throw new AssertionError("expected one container of " + service + ", got '" + id + "'");
    }
    return id;
  }

  /** Every container's output, for a failure report. */
  String logs() {
    return run("logs", "--no-color", "--tail", "80").output();
  }

  /** Stops and removes the containers and the volumes of the project. */
  Commands.Result down() {
    return run("down", "--volumes", "--remove-orphans", "--timeout", "20");
  }

  String name() {
    return name;
  }
}
