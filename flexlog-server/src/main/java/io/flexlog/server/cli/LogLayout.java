package io.flexlog.server.cli;

import ch.qos.logback.classic.pattern.TargetLengthBasedClassNameAbbreviator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.util.CachingDateFormatter;

/**
 * The line of every FlexLog log event: {@code HH:mm:ss.SSS LEVEL [thread] logger - message}, the
 * logger's name shortened to about 24 characters, then the stack trace of a throwable; the same
 * line as Logback's pattern {@code %d{HH:mm:ss.SSS} %-5level [%thread] %logger{24} - %msg%n}.
 *
 * <p>Built from Logback's own pieces (its date formatter, abbreviator and stack-trace printer)
 * rather than its {@code PatternLayout}, whose static table of some 70 converters is generated at
 * class load and was the larger part of Logback's start-up in every {@code bin/flexlog} command
 * (docs/operations.md#logs).
 */
final class LogLayout extends LayoutBase<ILoggingEvent> {
  private static final int LEVEL_WIDTH = 5;

  private final CachingDateFormatter time = new CachingDateFormatter("HH:mm:ss.SSS");
  private final TargetLengthBasedClassNameAbbreviator names =
      new TargetLengthBasedClassNameAbbreviator(24);

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(128);
    line.append(time.format(event.getTimeStamp())).append(' ');
    String level = event.getLevel().toString();
    line.append(level);
    for (int i = level.length(); i < LEVEL_WIDTH; i++) {
      line.append(' ');
    }
    line.append(" [").append(event.getThreadName()).append("] ");
    line.append(names.abbreviate(event.getLoggerName())).append(" - ");
    line.append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR);
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null) {
      line.append(ThrowableProxyUtil.asString(thrown)); // ends with a line separator
    }
    return line.toString();
  }
}
