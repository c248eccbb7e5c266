package io.bbfindex.app.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The tool itself: its help, and the commands {@link Cli} adds under it. */
@Command(
    name = "bbf-index",
    synopsisHeading = "",
    customSynopsis = "usage: bbf-index <command> [options]",
    description = {
      "",
      "Tells whether a Bitcoin txid or block hash is on chain and where Bitcoin Core stored it,"
          + " answering most negatives from SIMD blocked Bloom filters without touching disk.",
      ""
    },
    commandListHeading = "%ncommands:%n",
    footer = {"", "'bbf-index <command> --help' describes each command."})
final class BbfIndexCommand implements Callable<Integer> {
  @Spec CommandSpec spec = CommandSpec.create();

  @Mixin HelpOption help = new HelpOption();

  /** No command: the help. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return Cli.OK;
  }
}
