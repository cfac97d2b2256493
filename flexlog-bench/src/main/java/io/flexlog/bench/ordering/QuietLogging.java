package io.flexlog.bench.ordering;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Apache Ratis (and the gRPC and Netty copies shaded into it) from flooding the benchmark's
 * output: Ratis logs every election, configuration key and shutdown step at INFO, and every client
 * retry during an election at ERROR. The benchmark reports Ratis failures that matter itself: a
 * failed request fails the run with its exception. For debugging, {@value #LEVEL_PROPERTY} sets
 * another level (e.g. {@code -Dflexlog.bench.ratis.log.level=INFO} in {@code FLEXLOG_JAVA_OPTS}).
 *
 * <p>SLF4J loggers change only when SLF4J is bound to Logback; the shaded gRPC logs through
 * java.util.logging, whose logger is kept here because JUL holds loggers weakly.
 */
final class QuietLogging {
  static final String LEVEL_PROPERTY = "flexlog.bench.ratis.log.level";
  private static final String RATIS = "org.apache.ratis";
  private static final java.util.logging.Logger SHADED_GRPC =
      java.util.logging.Logger.getLogger("org.apache.ratis.thirdparty");

  private QuietLogging() {}

  static void ratis() {
    SHADED_GRPC.setLevel(java.util.logging.Level.WARNING);
    if (LoggerFactory.getLogger(RATIS) instanceof Logger logger) {
      logger.setLevel(Level.toLevel(System.getProperty(LEVEL_PROPERTY), Level.OFF));
    }
  }
}
