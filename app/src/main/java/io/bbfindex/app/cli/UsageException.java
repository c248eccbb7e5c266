package io.bbfindex.app.cli;

/** A bad command line: reported as one line on stderr, exit code 2. */
public final class UsageException extends Exception {
  public UsageException(String message) {
    super(message, null, false, false);
  }

  /** The same, keeping what the parser threw as the cause (for a debugger; never printed). */
  public UsageException(String message, Throwable cause) {
    super(message, cause, false, false);
  }
}
