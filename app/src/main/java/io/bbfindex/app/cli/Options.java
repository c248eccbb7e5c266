package io.bbfindex.app.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} / {@code --name=value} options of one command, checked against the names
 * the command accepts. Every problem is a {@link UsageException} with a one-line message that names
 * the option.
 */
final class Options {
  private final String command;
  private final Map<String, String> values = new HashMap<>();
  private boolean help;

  private Options(String command) {
    this.command = command;
  }

  /**
   * Parses {@code args}; {@code --help}/{@code -h} is always accepted.
   *
   * @param valued the option names (without dashes) that take a value
   * @throws UsageException on an unknown option, a missing value, a repeated option or a stray
   *     positional argument
   */
  static Options parse(String command, List<String> args, Set<String> valued)
      throws UsageException {
    Options o = new Options(command);
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--help") || arg.equals("-h")) {
        o.help = true;
        continue;
      }
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException(
            "unexpected argument '" + arg + "' (see bbf-index " + command + " --help)");
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      if (!valued.contains(name)) {
        throw new UsageException(
            "unknown option --" + name + " (see bbf-index " + command + " --help)");
      }
      String value;
      if (eq >= 0) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args.get(++i);
      } else {
        throw new UsageException("option --" + name + " needs a value");
      }
      if (o.values.put(name, value) != null) {
        throw new UsageException("option --" + name + " is given twice");
      }
    }
    return o;
  }

  boolean help() {
    return help;
  }

  boolean has(String name) {
    return values.containsKey(name);
  }

  String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  Path path(String name) throws UsageException {
    String v = values.get(name);
    if (v == null) {
      return null;
    }
    if (v.isBlank()) {
      throw new UsageException("option --" + name + " needs a non-empty path");
    }
    try {
      return Path.of(v).toAbsolutePath().normalize();
    } catch (InvalidPathException e) {
      throw new UsageException("option --" + name + " is not a valid path: " + v, e);
    }
  }

  Path requiredPath(String name) throws UsageException {
    Path p = path(name);
    if (p == null) {
      throw new UsageException(
          "option --" + name + " is required (see bbf-index " + command + " --help)");
    }
    return p;
  }

  int integer(String name, int fallback, int min, int max) throws UsageException {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min || n > max) {
        throw new UsageException(
            "option --" + name + " must be in [" + min + ", " + max + "]: " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException("option --" + name + " must be an integer: " + v, e);
    }
  }

  /** A probability strictly between 0 and 1 (e.g. a target false-positive rate). */
  double probability(String name, double fallback) throws UsageException {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      double p = Double.parseDouble(v.trim());
      if (!(p > 0 && p < 1)) {
        throw new UsageException("option --" + name + " must be between 0 and 1 (exclusive): " + v);
      }
      return p;
    } catch (NumberFormatException e) {
      throw new UsageException("option --" + name + " must be a number: " + v, e);
    }
  }

  /** Lowest target FPR accepted: 1e-9 already needs ~50 bits a key; below, sizes explode. */
  static final double MIN_FPR = 1e-9;

  /** Highest target FPR accepted: above one half a filter no longer saves most reads. */
  static final double MAX_FPR = 0.5;

  /**
   * A target false-positive rate in [{@value #MIN_FPR}, {@value #MAX_FPR}]: the filter's size grows
   * with log(1/p), so an unbounded p is an unbounded disk and memory bill (1e-25 wrote 17.7 GB for
   * 150,401 txids) and 1e-300 overflowed the sizing.
   */
  double fpr(String name, double fallback) throws UsageException {
    double p = probability(name, fallback);
    if (p < MIN_FPR || p > MAX_FPR) {
      throw new UsageException(
          "option --"
              + name
              + " must be in ["
              + MIN_FPR
              + ", "
              + MAX_FPR
              + "] (smaller rates make huge filters): "
              + values.get(name));
    }
    return p;
  }

  /** A flag without a value ({@code --name}), removed from {@code args}; true when it was there. */
  static boolean flag(List<String> args, String name) {
    return args.remove("--" + name);
  }

  /**
   * A literal IP address (no DNS lookup: binding to a name that resolves elsewhere would surprise).
   */
  InetAddress address(String name, String fallback) throws UsageException {
    String v = values.getOrDefault(name, fallback).trim();
    boolean literal = v.matches("[0-9.]+") || v.contains(":");
    if (!literal && !v.equals("localhost")) {
      throw new UsageException(
          "option --" + name + " must be an IP address such as 127.0.0.1 or ::1: " + v);
    }
    try {
      return InetAddress.getByName(v);
    } catch (UnknownHostException e) {
      throw new UsageException("option --" + name + " is not a valid IP address: " + v, e);
    }
  }
}
