package io.bbfindex.filters;

import org.jspecify.annotations.Nullable;

/**
 * The project's one argument check, with one message shape: {@code "<name> must <rule>: <value>"},
 * e.g. {@code requireArgument(k >= 1, "k must be >= 1", k)} fails with {@code "k must be >= 1: 0"}.
 * It lives here, in the base module's exported API package, so that chain-ingest and app use the
 * same check; it knows nothing of filters. The primitive overloads keep a passing check free of
 * boxing on paths that run per request.
 */
public final class Arguments {

  private Arguments() {}

  /**
   * Checks an argument.
   *
   * @param ok whether the argument is acceptable
   * @param rule {@code "<name> must <rule>"}, a constant string (it is never formatted)
   * @param value the offending value, appended after {@code ": "}
   * @throws IllegalArgumentException with message {@code rule + ": " + value} unless {@code ok}
   */
  public static void requireArgument(boolean ok, String rule, @Nullable Object value) {
    if (!ok) {
      throw new IllegalArgumentException(rule + ": " + value);
    }
  }

  /**
   * {@link #requireArgument(boolean, String, Object)} for an integral value.
   *
   * @throws IllegalArgumentException with message {@code rule + ": " + value} unless {@code ok}
   */
  public static void requireArgument(boolean ok, String rule, long value) {
    if (!ok) {
      throw new IllegalArgumentException(rule + ": " + value);
    }
  }

  /**
   * {@link #requireArgument(boolean, String, Object)} for a floating-point value.
   *
   * @throws IllegalArgumentException with message {@code rule + ": " + value} unless {@code ok}
   */
  public static void requireArgument(boolean ok, String rule, double value) {
    if (!ok) {
      throw new IllegalArgumentException(rule + ": " + value);
    }
  }
}
