package io.bbfindex.app.cli;

import org.jspecify.annotations.Nullable;

/** A bad command line: reported as one line on stderr, exit code 2. */
public final class UsageException extends Exception {
  /** {@code message} may be a parser's message, which a JDK exception may lack. */
  public UsageException(@Nullable String message) {
    super(orWhat(message), null, false, false);
  }

  /** The same, keeping what the parser threw as the cause (for a debugger; never printed). */
  public UsageException(@Nullable String message, Throwable cause) {
    super(orWhat(message), cause, false, false);
  }

  private static String orWhat(@Nullable String message) {
    return message == null ? "invalid command line" : message;
  }
}
