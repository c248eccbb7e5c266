package io.bbfindex.app.cli;

import io.bbfindex.app.workdir.NodeDirectories;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bbf-index ingest}: build or update the filter store of a Core data directory, or with
 * {@code --eth-rpc} the store of an Ethereum node ({@link EthIngest}).
 */
@Command(
    name = "ingest",
    synopsisHeading = "",
    customSynopsis = {
      "usage: bbf-index ingest --datadir DIR [--out FILTERS] [options]",
      "       bbf-index ingest --eth-rpc URL --out DIR [options]"
    },
    descriptionHeading = "%n",
    description = {
      "Builds the filters of a Bitcoin Core data directory (or, with --eth-rpc, of an Ethereum"
          + " node).",
      "",
      "Reads Bitcoin Core's block index, txindex and block files (never writing to DIR) and builds"
          + " a blocked Bloom filter over all txids (the summary) and one of block hashes into"
          + " FILTERS, with a manifest of each block file's txid count. A re-run only rebuilds what"
          + " changed.",
      "",
      "With --eth-rpc: reads an Ethereum node's blocks over JSON-RPC (hashes only, in batches) and"
          + " stores, for each range of 2^N final blocks, a blocked Bloom filter of its transaction"
          + " hashes and an exact (hash -> block, index) record, plus a summary filter. A re-run"
          + " adds the ranges that became final since.",
      ""
    },
    sortOptions = false)
final class IngestCommand implements Callable<Integer> {
  private final CliContext context;

  @Spec CommandSpec spec = CommandSpec.create();

  @Option(
      names = "--out",
      paramLabel = "FILTERS",
      description =
          "Where the store is written (default: the one 'serve --datadir DIR' finds,"
              + " $XDG_DATA_HOME/bbf-index/<network>-<hash of the data directory>; required with"
              + " --eth-rpc).")
  Optional<Path> out = Optional.empty();

  @ArgGroup(validate = false, heading = "%nBitcoin Core node:%n", order = 1)
  NodeOptions node = new NodeOptions();

  @ArgGroup(validate = false, heading = "%nFilter store:%n", order = 2)
  StoreOptions store = new StoreOptions();

  @ArgGroup(validate = false, heading = "%nEthereum node:%n", order = 3)
  EthOptions eth = new EthOptions();

  @Mixin HelpOption help = new HelpOption();

  IngestCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws UsageException, IOException {
    OptionRules rules = new OptionRules(spec);
    if (eth.given()) {
      OptionRules.notWith(rules.given(NodeOptions.class), "--eth-rpc");
      OptionRules.notWith(rules.given(StoreOptions.class, "--fpr"), "--eth-rpc");
      Path to =
          out.orElseThrow(() -> new UsageException("option --out is required with --eth-rpc"));
      EthIngest.run(eth, to, store.fpr, context);
      return Cli.OK;
    }
    OptionRules.needs(rules.given(EthOptions.class), "--eth-rpc");
    NodeDirectories dirs = node.directories();
    Path filters = out.isPresent() ? out.get() : NodeCommands.defaultStore(dirs, context.err());
    double fpr = store.fpr.orElse(StoreOptions.DEFAULT_FPR);
    context
        .out()
        .println(
            context
                .access()
                .ingest(
                    dirs.netDir(),
                    filters,
                    store.work(filters),
                    store.choices(fpr),
                    context.err()));
    return Cli.OK;
  }
}
