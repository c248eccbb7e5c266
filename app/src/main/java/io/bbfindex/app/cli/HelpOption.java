package io.bbfindex.app.cli;

import picocli.CommandLine.Option;

/** {@code -h}/{@code --help} of every command: the usage picocli generates from the options. */
final class HelpOption {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Print this help and exit.")
  boolean help;
}
