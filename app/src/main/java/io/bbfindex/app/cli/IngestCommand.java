package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code bbf-index ingest}: build or update the filter store of a Core data directory. */
final class IngestCommand {
  static final double DEFAULT_FPR = 0.01;

  static final String HELP =
      """
      usage: bbf-index ingest --datadir DIR --out FILTERS [--fpr P] [--work DIR] [--unsalted]

      Reads Bitcoin Core's block index, txindex and block files (never writing to DIR) and builds
      a blocked Bloom filter over all txids (the summary) and one of block hashes into FILTERS,
      with a manifest of each block file's txid count. A re-run only rebuilds what changed.

        --datadir DIR   Bitcoin Core data directory holding blocks/ (and indexes/txindex)
        --out FILTERS   where the filter store is written
        --fpr P         target false-positive rate per filter, in [1e-9, 0.5] (default 0.01)
        --work DIR      scratch for private LevelDB snapshots (default: FILTERS-work)
        --unsalted      build unkeyed filters (by default each store gets a secret random salt,
                        so that false positives cannot be precomputed from the public chain)
      """;

  private static final Set<String> OPTIONS = Set.of("datadir", "out", "fpr", "work");

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
    Path datadir = o.requiredPath("datadir");
    Path filters = o.requiredPath("out");
    double fpr = o.fpr("fpr", DEFAULT_FPR);
    if (!Files.isDirectory(datadir.resolve("blocks"))) {
      throw new UsageException(
          "--datadir "
              + datadir
              + " has no blocks/ folder (pass the folder that holds blocks/, e.g. ~/.bitcoin or"
              + " ~/.bitcoin/regtest)");
    }
    Path work = o.path("work");
    if (work == null) {
      work = filters.resolveSibling(filters.getFileName() + "-work");
    }
    out.println(access.ingest(datadir, filters, work, fpr, unsalted, err));
    return true;
  }
}
