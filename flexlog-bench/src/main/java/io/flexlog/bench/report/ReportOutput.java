package io.flexlog.bench.report;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Writes a finished benchmark's report (text, optional JSON file) and decides the exit code. */
public final class ReportOutput {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;

  private ReportOutput() {}

  /**
   * Prints {@code text} to {@code out}, writes {@code json} to {@code jsonFile} if given, and
   * returns {@link #EXIT_FAILED} (after printing {@code invalidMessage}) unless the run was valid
   * and the file could be written.
   */
  public static int emit(
      String text,
      String json,
      Optional<Path> jsonFile,
      boolean valid,
      String invalidMessage,
      PrintWriter out,
      PrintWriter err) {
    out.print(text);
    out.flush();
    if (!writeJson(json, jsonFile, err)) {
      return EXIT_FAILED;
    }
    if (!valid) {
      err.println(invalidMessage);
      err.flush();
      return EXIT_FAILED;
    }
    return EXIT_OK;
  }

  /**
   * Writes {@code json} and a line break to {@code jsonFile} if given. Returns false, after
   * printing why on {@code err}, when the file could not be written.
   */
  public static boolean writeJson(String json, Optional<Path> jsonFile, PrintWriter err) {
    if (jsonFile.isEmpty()) {
      return true;
    }
    try {
      Files.writeString(jsonFile.get(), json + "\n", StandardCharsets.UTF_8);
      return true;
    } catch (IOException e) {
      err.println("cannot write --json " + jsonFile.get() + ": " + e);
      return false;
    }
  }
}
