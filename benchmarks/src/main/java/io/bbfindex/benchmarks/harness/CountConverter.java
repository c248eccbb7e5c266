package io.bbfindex.benchmarks.harness;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A count option such as {@code --records 10_000_000} or {@code --keys 1,400,000,000}: digits with
 * optional {@code _} or {@code ,} separators, at least 1 ({@link OrZero}: at least 0, for an option
 * whose 0 means "skip").
 */
public class CountConverter implements ITypeConverter<Long> {
  private final long min;

  public CountConverter() {
    this(1);
  }

  private CountConverter(long min) {
    this.min = min;
  }

  /** A count where 0 is allowed (and means "skip this part"). */
  public static final class OrZero extends CountConverter {
    public OrZero() {
      super(0);
    }
  }

  @Override
  public Long convert(String value) {
    String digits = value.replace("_", "").replace(",", "");
    if (!digits.matches("[0-9]{1,18}") || Long.parseLong(digits) < min) {
      throw new TypeConversionException(
          "'" + value + "' is not a count >= " + min + " (digits, '_' or ',' allowed)");
    }
    return Long.parseLong(digits);
  }
}
