package io.flexlog.bench.cli;

import io.flexlog.server.cli.CliExtension;

/** Adds {@code flexlog bench} to the launcher; found through {@link java.util.ServiceLoader}. */
public final class BenchCliExtension implements CliExtension {
  @Override
  public Object command() {
    return new BenchCommand();
  }
}
