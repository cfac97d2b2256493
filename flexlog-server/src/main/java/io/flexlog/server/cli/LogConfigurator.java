package io.flexlog.server.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's configuration for FlexLog's processes, in code rather than a {@code logback.xml}: the
 * XML path loads an XML parser and Logback's Joran interpreter, some 600 classes that every {@code
 * bin/flexlog} command, node and benchmark paid for at start, and whose JIT compilation competed
 * with the first second of a benchmark (docs/operations.md#logs).
 *
 * <p>What it sets: one appender to stderr (stdout stays for command output) with the line of {@link
 * LogLayout}; the root at {@code -Dflexlog.log.level} (INFO unless set; client commands set WARN);
 * Netty and Ratis at WARN; Ratis's retry logger of ordered async requests off (the metadata quorum
 * reports a request's final failure itself).
 *
 * <p>It steps aside, leaving Logback's own search to run, when {@code -Dlogback.configurationFile}
 * is set or a {@code logback-test.xml} or {@code logback.xml} is on the class path: an operator's
 * or a test's configuration always wins.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  /** The system property that sets the root level. */
  static final String LEVEL_PROPERTY = "flexlog.log.level";

  private final ClassLoader resources;

  /** The configurator Logback finds as a service; it looks for XML on its own class path. */
  public LogConfigurator() {
    this(LogConfigurator.class.getClassLoader());
  }

  LogConfigurator(ClassLoader resources) {
    this.resources = resources;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || resources.getResource("logback-test.xml") != null
        || resources.getResource("logback.xml") != null) {
      return ExecutionStatus.NEUTRAL;
    }
    LogLayout layout = new LogLayout();
    layout.setContext(context);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();

    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();

    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(System.getProperty(LEVEL_PROPERTY), Level.INFO));
    root.addAppender(stderr);
    context.getLogger("io.netty").setLevel(Level.WARN);
    context.getLogger("org.apache.ratis").setLevel(Level.WARN);
    context.getLogger("org.apache.ratis.client.impl.OrderedAsync").setLevel(Level.OFF);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
