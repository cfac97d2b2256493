package io.flexlog.bench.ordering;

/** An option value with a lower-case command-line spelling, also used in reports. */
interface CliValue {
  String cliName();
}
