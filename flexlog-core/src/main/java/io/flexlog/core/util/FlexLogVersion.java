package io.flexlog.core.util;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of this build, as Maven wrote it into {@code
 * io/flexlog/core/flexlog-version.properties} when it built {@code flexlog-core} (the same from
 * classes and from the jar).
 */
public final class FlexLogVersion {
  private static final String RESOURCE = "/io/flexlog/core/flexlog-version.properties";
  private static final String VERSION = load();

  private FlexLogVersion() {}

  /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = FlexLogVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            RESOURCE + " is missing from the classpath: a broken build");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version");
      if (version == null || version.isBlank() || version.startsWith("${")) {
        throw new IllegalStateException(RESOURCE + " holds no version: a broken build");
      }
      return version.strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}
