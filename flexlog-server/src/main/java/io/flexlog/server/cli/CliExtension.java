package io.flexlog.server.cli;

/**
 * Adds a subcommand to the {@code flexlog} command line. Modules that build on the server (the
 * benchmarks) register implementations in {@code
 * META-INF/services/io.flexlog.server.cli.CliExtension}; the launcher finds them with {@link
 * java.util.ServiceLoader}, so the server does not depend on them.
 */
public interface CliExtension {
  /** A picocli {@code @Command}-annotated object, added as a subcommand under its own name. */
  Object command();
}
