package io.bbfindex.ingest.build;

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
 *     node can grow that much before the summary's geometry must change (default 1.25)
 * @param salt 0 for the unsalted bit derivation, else the per-store salt
 * @param parallelism threads for verifying and writing filter files (default: available cores)
 * @param memoryBudgetBytes how many bytes of per-file filters one scan of the txindex may hold at
 *     once; more makes the build scan the txindex again for the rest (the summary is extra)
 */
public record BuildOptions(
    double targetFpr,
    double summaryFpr,
    double summaryHeadroom,
    long salt,
    int parallelism,
    long memoryBudgetBytes) {

  public static final double DEFAULT_FPR = 0.01;
  public static final double DEFAULT_HEADROOM = 1.25;
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
   * 1 % everywhere, 25 % summary headroom, unsalted, all cores, 4 GiB of per-file filters per scan.
   */
  public static BuildOptions defaults() {
    return new BuildOptions(
        DEFAULT_FPR,
        DEFAULT_FPR,
        DEFAULT_HEADROOM,
        0,
        Runtime.getRuntime().availableProcessors(),
        DEFAULT_MEMORY_BUDGET);
  }

  public BuildOptions withTargetFpr(double fpr) {
    return new BuildOptions(fpr, fpr, summaryHeadroom, salt, parallelism, memoryBudgetBytes);
  }

  public BuildOptions withSalt(long s) {
    return new BuildOptions(
        targetFpr, summaryFpr, summaryHeadroom, s, parallelism, memoryBudgetBytes);
  }

  public BuildOptions withParallelism(int p) {
    return new BuildOptions(targetFpr, summaryFpr, summaryHeadroom, salt, p, memoryBudgetBytes);
  }

  public BuildOptions withMemoryBudget(long bytes) {
    return new BuildOptions(targetFpr, summaryFpr, summaryHeadroom, salt, parallelism, bytes);
  }
}
