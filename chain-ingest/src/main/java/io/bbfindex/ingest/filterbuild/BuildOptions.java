package io.bbfindex.ingest.filterbuild;

import static io.bbfindex.filters.Arguments.requireArgument;

/**
 * How filters are built.
 *
 * @param targetFpr false-positive rate each per-file filter and the block-hash filter are sized for
 *     (default 1 %)
 * @param summaryFpr false-positive rate the summary filter must keep up to its capacity: the
 *     summary is what answers negative lookups, so its FPR is the fraction of unknown txids that
 *     cost a LevelDB read (default: {@code targetFpr})
 * @param summaryHeadroom the summary is sized for this many times the present txid count, so the
 *     node can grow that much before the summary's geometry must change (default 1.04: with format
 *     v2's exact sizing the summary then costs at most 1.05x the bits eq. 3 needs for the present
 *     txids; growth between refreshes is what the tip and mempool layers absorb)
 * @param salt 0 for the unsalted bit derivation, else the per-store salt
 * @param parallelism threads for verifying and writing filter files (default: available cores)
 * @param memoryBudgetBytes how many bytes of per-file filters one scan of the txindex may hold at
 *     once; more makes the build scan the txindex again for the rest (the summary is extra)
 * @param fileFilters whether to write one txid filter per block file ({@code tx-blkNNNNN.bbf})
 *     beside the summary (default: no). No lookup probes them (the summary answers, the txindex
 *     settles a "maybe"), so by default they are not built: the manifest keeps each block file's
 *     bookkeeping (its 'f' record and exact row count) without a filter file, which is all an
 *     incremental build needs. On, they serve {@code FilterStore.candidateFiles} / {@code
 *     fileFilter} and the {@code GET /v1/filters} listing, at 10.1 more bits a txid on disk.
 */
public record BuildOptions(
    double targetFpr,
    double summaryFpr,
    double summaryHeadroom,
    long salt,
    int parallelism,
    long memoryBudgetBytes,
    boolean fileFilters) {

  public static final double DEFAULT_FPR = 0.01;

  /**
   * 4 %: about five months of mainnet growth (about 10 % a year) before an update turns into a full
   * rebuild of the summary, for 4 % more bits than the present txids need.
   */
  public static final double DEFAULT_HEADROOM = 1.04;

  public static final long DEFAULT_MEMORY_BUDGET = 4L << 30;

  public BuildOptions {
    requireArgument(targetFpr > 0 && targetFpr < 1, "targetFpr must be in (0, 1)", targetFpr);
    requireArgument(summaryFpr > 0 && summaryFpr < 1, "summaryFpr must be in (0, 1)", summaryFpr);
    requireArgument(
        summaryHeadroom >= 1 && summaryHeadroom <= 16,
        "summaryHeadroom must be in [1, 16]",
        summaryHeadroom);
    requireArgument(parallelism >= 1, "parallelism must be >= 1", parallelism);
    requireArgument(memoryBudgetBytes >= 1, "memoryBudgetBytes must be >= 1", memoryBudgetBytes);
  }

  /**
   * 1 % everywhere, 4 % summary headroom, unsalted, all cores, 4 GiB of per-file filters per scan,
   * no per-file filter files.
   */
  public static BuildOptions defaults() {
    return new BuildOptions(
        DEFAULT_FPR,
        DEFAULT_FPR,
        DEFAULT_HEADROOM,
        0,
        Runtime.getRuntime().availableProcessors(),
        DEFAULT_MEMORY_BUDGET,
        false);
  }

  /** These options with per-file filters written ({@code true}) or not. */
  public BuildOptions withFileFilters(boolean write) {
    return new BuildOptions(
        targetFpr, summaryFpr, summaryHeadroom, salt, parallelism, memoryBudgetBytes, write);
  }

  public BuildOptions withTargetFpr(double fpr) {
    return new BuildOptions(
        fpr, fpr, summaryHeadroom, salt, parallelism, memoryBudgetBytes, fileFilters);
  }

  public BuildOptions withSalt(long s) {
    return new BuildOptions(
        targetFpr, summaryFpr, summaryHeadroom, s, parallelism, memoryBudgetBytes, fileFilters);
  }

  public BuildOptions withParallelism(int p) {
    return new BuildOptions(
        targetFpr, summaryFpr, summaryHeadroom, salt, p, memoryBudgetBytes, fileFilters);
  }

  public BuildOptions withMemoryBudget(long bytes) {
    return new BuildOptions(
        targetFpr, summaryFpr, summaryHeadroom, salt, parallelism, bytes, fileFilters);
  }
}
