package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.workdir.NodeDirectories;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code bbf-index ingest}: build or update the filter store of a Core data directory. */
final class IngestCommand {
  static final double DEFAULT_FPR = 0.01;

  static final String HELP =
      """
      usage: bbf-index ingest --datadir DIR [--out FILTERS] [--fpr P] [--work DIR] [--unsalted]

      Reads Bitcoin Core's block index, txindex and block files (never writing to DIR) and builds
      a blocked Bloom filter over all txids (the summary) and one of block hashes into FILTERS,
      with a manifest of each block file's txid count. A re-run only rebuilds what changed.

        --datadir DIR   Bitcoin Core data directory, as bitcoind's -datadir (e.g. ~/.bitcoin:
                        its bitcoin.conf says the network; or ~/.bitcoin/regtest)
        --conf FILE     the node's configuration (default DIR/bitcoin.conf)
        --out FILTERS   where the filter store is written (default: the one 'serve --datadir DIR'
                        finds, $XDG_DATA_HOME/bbf-index/<network>-<hash of the data directory>)
        --fpr P         target false-positive rate per filter, in [1e-9, 0.5] (default 0.01)
        --work DIR      scratch for private LevelDB snapshots (default: FILTERS-work)
        --unsalted      build unkeyed filters (by default each store gets a secret random salt,
                        so that false positives cannot be precomputed from the public chain)
      """;

  private static final Set<String> OPTIONS = Set.of("datadir", "conf", "out", "fpr", "work");

  private IngestCommand() {}

  /**
   * @return false when only help was printed
   */
  static boolean run(List<String> args, PrintStream out, PrintStream err, ChainAccess access)
      throws UsageException, IOException {
    List<String> rest = new java.util.ArrayList<>(args);
    boolean unsalted = Options.flag(rest, "unsalted");
    Options o = Options.parse("ingest", rest, OPTIONS);
    if (o.help()) {
      out.print(HELP);
      return false;
    }
    NodeDirectories node = NodeCommands.directories(o.requiredPath("datadir"), o.path("conf"));
    Path datadir = node.netDir();
    double fpr = o.fpr("fpr", DEFAULT_FPR);
    Path filters = o.has("out") ? o.path("out") : NodeCommands.defaultStore(node, err);
    Path work = o.path("work");
    if (work == null) {
      work = filters.resolveSibling(filters.getFileName() + "-work");
    }
    out.println(access.ingest(datadir, filters, work, fpr, unsalted, err));
    return true;
  }
}
