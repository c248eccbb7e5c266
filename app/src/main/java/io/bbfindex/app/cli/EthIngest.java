package io.bbfindex.app.cli;

import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.EthStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;

/** {@code ingest --eth-rpc URL --out DIR}: the final ranges of an Ethereum node into its store. */
final class EthIngest {
  private EthIngest() {}

  static void run(EthOptions eth, Path store, Optional<Double> fpr, CliContext context)
      throws UsageException, IOException {
    EthConfig config = eth.config(store, fpr.orElse(EthConfig.DEFAULT_FPR), EthConfig.DEFAULT_POLL);
    PrintStream err = context.err();
    try (EthIndex index = EthIndex.open(config)) {
      long started = System.nanoTime();
      int added = index.ingestFinalRanges(err::println);
      EthStatus s = index.status();
      double secs = (System.nanoTime() - started) / 1e9;
      context
          .out()
          .printf(
              "eth: %d ranges of %d blocks in %s (%d added in %.1f s, %d transactions); final"
                  + " block %d, head %d%n",
              s.ranges(),
              1L << s.rangeBits(),
              config.store(),
              added,
              secs,
              s.historyTxs(),
              s.finalized(),
              s.head());
    }
  }
}
