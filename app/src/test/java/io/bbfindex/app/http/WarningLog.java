package io.bbfindex.app.http;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects what the server logs at WARNING or above (java.util.logging, where the JDK's
 * System.Logger of the app and Netty's logging through SLF4J end): the handler answers an exception
 * it did not expect with a 500 or a closed connection and a log record, and Netty's paranoid leak
 * detector reports an unreleased buffer only there, so a fuzz target that must find neither checks
 * this log.
 */
final class WarningLog extends Handler {

  private final List<Logger> loggers = new ArrayList<>();
  private final List<LogRecord> records = new ArrayList<>();

  private WarningLog() {
    setLevel(Level.WARNING);
  }

  /** Starts collecting the records of {@code loggerNames} (and their children). */
  static WarningLog attach(String... loggerNames) {
    WarningLog log = new WarningLog();
    for (String name : loggerNames) {
      Logger logger = Logger.getLogger(name);
      logger.addHandler(log);
      log.loggers.add(logger); // strong references: JUL forgets unreferenced loggers' handlers
    }
    return log;
  }

  @Override
  public synchronized void publish(LogRecord record) {
    if (isLoggable(record)) {
      records.add(record);
    }
  }

  /** Fails with the first record collected since the last call, if any; then forgets them. */
  synchronized void assertNothingLogged(String context) {
    if (records.isEmpty()) {
      return;
    }
    LogRecord first = records.getFirst();
    records.clear();
    AssertionError e =
        new AssertionError(
            context + ": the server logged " + first.getLevel() + " " + first.getMessage());
    if (first.getThrown() != null) {
      e.initCause(first.getThrown());
    }
    throw e;
  }

  /** Forgets what was collected so far (e.g. while other tests of the JVM built their stores). */
  synchronized void forget() {
    records.clear();
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
