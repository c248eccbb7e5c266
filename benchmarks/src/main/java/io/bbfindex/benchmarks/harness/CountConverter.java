package io.bbfindex.benchmarks.harness;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A count option such as {@code --records 10_000_000} or {@code --keys 1,400,000,000}: digits with
 * optional {@code _} or {@code ,} separators, at least 1.
 */
public final class CountConverter implements ITypeConverter<Long> {

  @Override
  public Long convert(String value) {
    String digits = value.replace("_", "").replace(",", "");
    if (!digits.matches("[0-9]{1,18}") || Long.parseLong(digits) < 1) {
      throw new TypeConversionException(
          "'" + value + "' is not a count >= 1 (digits, '_' or ',' allowed)");
    }
    return Long.parseLong(digits);
  }
}
