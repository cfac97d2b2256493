package io.flexlog.server.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * Runs the command line in this JVM with standard input, output and error captured (commands that
 * print payloads write bytes to {@code System.out}). Not for parallel tests: it swaps the process's
 * standard streams while the command runs.
 */
record CliRun(int code, byte[] stdout, String stderr) {
  static CliRun run(String... args) {
    return withInput(new byte[0], args);
  }

  static CliRun withInput(byte[] stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    PrintStream savedOut = System.out;
    InputStream savedIn = System.in;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setIn(new ByteArrayInputStream(stdin));
    try {
      CommandLine cmd = FlexLogCli.commandLine();
      cmd.setOut(new PrintWriter(System.out, true));
      cmd.setErr(new PrintWriter(err, true));
      int code = cmd.execute(args);
      System.out.flush();
      return new CliRun(code, out.toByteArray(), err.toString());
    } finally {
      System.setOut(savedOut);
      System.setIn(savedIn);
    }
  }

  String out() {
    return new String(stdout, StandardCharsets.UTF_8);
  }
}
