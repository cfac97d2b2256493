package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.net.URL;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FlexLog's Logback configuration in code: the line it writes and when it steps aside. */
class LogConfiguratorTest {
  /** The pattern of the logback.xml that {@link LogConfigurator} replaced. */
  private static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{24} - %msg%n";

  @Test
  void shouldWriteTheSameLineAsLogbacksPatternLayout() {
    LoggerContext context = new LoggerContext();
    PatternLayout pattern = new PatternLayout();
    pattern.setContext(context);
    pattern.setPattern(PATTERN);
    pattern.start();
    LogLayout ours = new LogLayout();
    ours.setContext(context);
    ours.start();

    IllegalStateException cause = new IllegalStateException("disk gone");
    List<LoggingEvent> events =
        List.of(
            event(context, "io.flexlog.replica.replication.ReplicationEngine", Level.INFO, null),
            event(context, "short", Level.WARN, null),
            event(context, "io.flexlog.server.cli.LogConfiguratorTest", Level.ERROR, cause),
            event(
                context,
                "io.flexlog.replica.node.SequencerLink",
                Level.DEBUG,
                new RuntimeException("wrapped", cause)),
            event(context, "ROOT", Level.TRACE, null));
    for (LoggingEvent event : events) {
      assertThat(ours.doLayout(event)).isEqualTo(pattern.doLayout(event));
    }
    assertThat(ours.doLayout(events.get(0)))
        .matches(
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[worker-7\\] i\\.f\\.r\\.r\\.ReplicationEngine"
                + " - replica 3 recovered 42 entries\\R");
  }

  @Test
  void shouldConfigureStderrAndTheLevelsOfTheReplacedXml() {
    LoggerContext context = new LoggerContext();
    String before = System.getProperty(LogConfigurator.LEVEL_PROPERTY);
    try {
      System.clearProperty(LogConfigurator.LEVEL_PROPERTY);
      assertThat(configure(context)).isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
      Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
      assertThat(root.getLevel()).isEqualTo(Level.INFO);
      assertThat(root.getAppender("STDERR"))
          .isInstanceOfSatisfying(
              ConsoleAppender.class,
              appender -> {
                assertThat(appender.getTarget()).isEqualTo("System.err");
                assertThat(appender.isStarted()).isTrue();
                assertThat(((LayoutWrappingEncoder<?>) appender.getEncoder()).getLayout())
                    .isInstanceOf(LogLayout.class);
              });
      assertThat(context.getLogger("io.netty").getLevel()).isEqualTo(Level.WARN);
      assertThat(context.getLogger("org.apache.ratis").getLevel()).isEqualTo(Level.WARN);
      assertThat(context.getLogger("org.apache.ratis.client.impl.OrderedAsync").getLevel())
          .isEqualTo(Level.OFF);

      LoggerContext quiet = new LoggerContext();
      System.setProperty(LogConfigurator.LEVEL_PROPERTY, "WARN");
      configure(quiet);
      assertThat(quiet.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.WARN);
    } finally {
      restore(LogConfigurator.LEVEL_PROPERTY, before);
    }
  }

  @Test
  void shouldStepAsideForAnOperatorsOrATestsConfiguration() {
    String before = System.getProperty("logback.configurationFile");
    try {
      for (String xml : List.of("logback-test.xml", "logback.xml")) {
        LoggerContext withXml = new LoggerContext();
        LogConfigurator configurator = new LogConfigurator(holding(xml));
        configurator.setContext(withXml);
        assertThat(configurator.configure(withXml)).as(xml).isEqualTo(ExecutionStatus.NEUTRAL);
      }

      System.setProperty("logback.configurationFile", "/etc/flexlog/logback.xml");
      LoggerContext context = new LoggerContext();
      assertThat(configure(context)).isEqualTo(ExecutionStatus.NEUTRAL);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNull();
    } finally {
      restore("logback.configurationFile", before);
    }
  }

  /** A class path that holds only {@code name} (null: nothing), whatever this test's holds. */
  private static ClassLoader holding(String name) {
    return new ClassLoader(null) {
      @Override
      protected URL findResource(String resource) {
        return resource.equals(name)
            ? LogConfiguratorTest.class.getResource("LogConfiguratorTest.class")
            : null;
      }
    };
  }

  private static ExecutionStatus configure(LoggerContext context) {
    LogConfigurator configurator = new LogConfigurator(holding(null));
    configurator.setContext(context);
    return configurator.configure(context);
  }

  private static LoggingEvent event(
      LoggerContext context, String logger, Level level, Throwable thrown) {
    LoggingEvent event =
        new LoggingEvent(
            "fqcn",
            context.getLogger(logger),
            level,
            "replica {} recovered {} entries",
            thrown,
            new Object[] {3, 42});
    event.setThreadName("worker-7");
    return event;
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }
}
