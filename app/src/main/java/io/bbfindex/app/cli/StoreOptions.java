package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.StoreChoices;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How a Bitcoin filter store is built, wherever one is: {@code ingest}, and {@code serve}. */
final class StoreOptions {
  static final double DEFAULT_FPR = 0.01;

  @Option(
      names = "--fpr",
      paramLabel = "P",
      converter = Converters.Fpr.class,
      description =
          "Target false-positive rate of each filter, in [1e-9, 0.5] (default 0.01; serve: the"
              + " existing store's own, 0.01 for a new one).")
  Optional<Double> fpr = Optional.empty();

  @Option(
      names = "--work",
      paramLabel = "DIR",
      description =
          "Scratch for the private LevelDB snapshots (default: the store's path + -work).")
  Optional<Path> work = Optional.empty();

  @Option(
      names = "--unsalted",
      description =
          "Build unkeyed filters (default: a secret random salt per store, so that false positives"
              + " cannot be precomputed from the public chain).")
  boolean unsalted;

  @Option(
      names = "--file-filters",
      description =
          "Also write one BBF per blk file (tx-blkNNNNN.bbf): about 10 more bits a txid on disk and"
              + " in memory (1.7 GiB at mainnet). No lookup needs them; they list in /v1/filters"
              + " and tell which block files may hold a txid. A build without it removes them.")
  boolean fileFilters;

  /** {@code --work}, else beside the store: {@code FILTERS-work}. */
  Path work(Path filters) {
    return work.orElseGet(() -> filters.resolveSibling(filters.getFileName() + "-work"));
  }

  /** The choices of a build at {@code fpr}. */
  StoreChoices choices(double targetFpr) {
    return new StoreChoices(targetFpr, unsalted, fileFilters);
  }
}
