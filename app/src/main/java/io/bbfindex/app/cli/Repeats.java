package io.bbfindex.app.cli;

import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * An option given twice is a usage error, not "the last one wins": picocli refuses that for plain
 * options, but an option of an argument group (the option sections) would start a second group.
 */
final class Repeats {
  private Repeats() {}

  /** Throws if an option that takes a value was given more than once in {@code parsed}. */
  static void refuse(ParseResult parsed) {
    for (ParseResult p = parsed; ; p = p.subcommand()) {
      for (OptionSpec o : p.matchedOptions()) {
        if (o.arity().max() > 0 && o.originalStringValues().size() > 1) {
          throw new ParameterException(
              p.commandSpec().commandLine(), "option " + o.longestName() + " is given twice");
        }
      }
      if (!p.hasSubcommand()) {
        return;
      }
    }
  }
}
