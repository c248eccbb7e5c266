package io.bbfindex.app.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How option values become paths, addresses and false-positive rates; a bad value is a one-line
 * usage error that picocli prefixes with the option's name.
 */
final class Converters {
  private Converters() {}

  /** Registers the converters of the types every command uses on {@code commandLine}. */
  static CommandLine register(CommandLine commandLine) {
    return commandLine
        .registerConverter(Path.class, new AbsolutePath())
        .registerConverter(InetAddress.class, new IpLiteral());
  }

  /** A non-empty path, made absolute and normalized (relative to the working directory). */
  static final class AbsolutePath implements ITypeConverter<Path> {
    @Override
    @SuppressWarnings("UnusedException") // picocli's TypeConversionException takes no cause
    public Path convert(String value) {
      if (value.isBlank()) {
        throw new TypeConversionException("needs a non-empty path");
      }
      try {
        return Path.of(value).toAbsolutePath().normalize();
      } catch (InvalidPathException e) {
        throw new TypeConversionException("not a valid path: " + value);
      }
    }
  }

  /**
   * A literal IP address (or {@code localhost}); no DNS lookup: binding to a name that resolves
   * elsewhere would surprise.
   */
  static final class IpLiteral implements ITypeConverter<InetAddress> {
    @Override
    @SuppressWarnings("UnusedException") // picocli's TypeConversionException takes no cause
    public InetAddress convert(String value) {
      String v = value.trim();
      boolean literal = v.matches("[0-9.]+") || v.contains(":");
      if (!literal && !v.equals("localhost")) {
        throw new TypeConversionException(
            "must be an IP address such as 127.0.0.1 or ::1: " + value);
      }
      try {
        return InetAddress.getByName(v);
      } catch (UnknownHostException e) {
        throw new TypeConversionException("not a valid IP address: " + value);
      }
    }
  }

  /**
   * A target false-positive rate in [{@value #MIN_FPR}, {@value #MAX_FPR}]: a filter's size grows
   * with log(1/p), so an unbounded p is an unbounded disk and memory bill (1e-25 wrote 17.7 GB for
   * 150,401 txids) and 1e-300 overflowed the sizing.
   */
  static final class Fpr implements ITypeConverter<Double> {
    /** Lowest accepted: 1e-9 already needs about 50 bits a key; below, sizes explode. */
    static final double MIN_FPR = 1e-9;

    /** Highest accepted: above one half a filter no longer saves most reads. */
    static final double MAX_FPR = 0.5;

    @Override
    @SuppressWarnings("UnusedException") // picocli's TypeConversionException takes no cause
    public Double convert(String value) {
      double p;
      try {
        p = Double.parseDouble(value.trim());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("must be a number: " + value);
      }
      if (!(p >= MIN_FPR && p <= MAX_FPR)) {
        throw new TypeConversionException(
            "must be in ["
                + MIN_FPR
                + ", "
                + MAX_FPR
                + "] (smaller rates make huge filters): "
                + value);
      }
      return p;
    }
  }
}
