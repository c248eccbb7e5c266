package io.bbfindex.app.cli;

/** Range checks of numeric options, as one-line usage errors that name the option. */
final class Bounds {
  private Bounds() {}

  /** {@code value} when it is in [{@code min}, {@code max}]. */
  static int check(String option, int value, int min, int max) throws UsageException {
    if (value < min || value > max) {
      throw new UsageException(
          "option " + option + " must be in [" + min + ", " + max + "]: " + value);
    }
    return value;
  }
}
