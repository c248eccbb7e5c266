package io.bbfindex.app.cli;

import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Which options go together: picocli parses every option of a command, and what only one mode of it
 * takes (following a node, an Ethereum node) is refused, naming the option, when that mode is off.
 * Reads what the user gave from the command's parse result.
 */
final class OptionRules {
  private final CommandSpec spec;

  OptionRules(CommandSpec spec) {
    this.spec = spec;
  }

  /**
   * The first option the user gave of the option group {@code group} (a class), but {@code except}.
   */
  Optional<String> given(Class<?> group, String... except) {
    List<String> excepted = List.of(except);
    return matched().stream()
        .filter(o -> o.group() != null && isOf(o.group(), group))
        .map(OptionSpec::longestName)
        .filter(name -> !excepted.contains(name))
        .findFirst();
  }

  /** The first of {@code options} the user gave. */
  Optional<String> givenOf(String... options) {
    List<String> names = List.of(options);
    return matched().stream().map(OptionSpec::longestName).filter(names::contains).findFirst();
  }

  /** Refuses {@code option}, if given, as an option that exists only with {@code mode}. */
  static void needs(Optional<String> option, String mode) throws UsageException {
    if (option.isPresent()) {
      throw new UsageException("unknown option " + option.get() + " without " + mode);
    }
  }

  /** Refuses {@code option}, if given, as one that {@code mode} does not take. */
  static void notWith(Optional<String> option, String mode) throws UsageException {
    if (option.isPresent()) {
      throw new UsageException("option " + option.get() + " is not taken with " + mode);
    }
  }

  private List<OptionSpec> matched() {
    return spec.commandLine().getParseResult().matchedOptions();
  }

  private static boolean isOf(ArgGroupSpec g, Class<?> group) {
    return group.isAssignableFrom(g.typeInfo().getType());
  }
}
