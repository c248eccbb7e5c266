package io.bbfindex.app.cli;

import io.bbfindex.app.pruned.PrunedOptions;
import picocli.CommandLine.Option;

/** {@code serve --backfill-pruned [--backfill-rate N]}: blocks a pruning node deleted earlier. */
final class PrunedCliOptions {

  @Option(
      names = "--backfill-pruned",
      description =
          "Beside a pruning node (-prune=N): fetch the blocks it pruned before bbf-index indexed"
              + " them back from its peers (getblockfrompeer, Bitcoin Core >= 24) and index them;"
              + " the node must be running. Resumable; progress in /v1/status and /metrics.")
  boolean backfill;

  @Option(
      names = "--backfill-rate",
      paramLabel = "N",
      description =
          "With --backfill-pruned: at most N blocks asked of peers a second (default"
              + " ${DEFAULT-VALUE}).")
  double blocksPerSecond = PrunedOptions.DEFAULT_BLOCKS_PER_SECOND;

  /** The rate, checked. */
  double rate() throws UsageException {
    if (!(blocksPerSecond > 0) || blocksPerSecond > 10_000) {
      throw new UsageException("--backfill-rate must be above 0 and at most 10000");
    }
    return blocksPerSecond;
  }
}
