package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.filterbuild.BuildPlan.SummaryAction;
import io.bbfindex.ingest.filterbuild.SourcePlan.FileSource;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import org.jspecify.annotations.Nullable;

/**
 * One execution of {@link FilterBuilder#build} (see its class comment for the algorithm), in four
 * steps: inspect what stands ({@link StoreInspection}), decide what to rebuild ({@link BuildPlan}),
 * scan the txindex for it ({@link FilterScan}), write the summary, the block-hash filter and the
 * manifest ({@link StoreCommit}).
 */
final class BuildRun {

  private final ChainSource index;
  private final Path outDir;
  private final BuildOptions opts;
  private final ProgressListener progress;

  /** The store as {@code FilterStore.open} verified it before this run, or null. */
  private final @Nullable FilterStore verified;

  private final long started = System.nanoTime();

  BuildRun(
      ChainSource index,
      Path outDir,
      BuildOptions opts,
      ProgressListener progress,
      @Nullable FilterStore verified) {
    this.verified = verified;
    this.index = index;
    this.outDir = outDir;
    this.opts = opts;
    this.progress = progress;
  }

  BuildReport run() throws IOException {
    SourcePlan source = SourcePlan.of(index, outDir);
    String datadir = index.datadir().toString();
    int txindexTip = index.txindexTipHeight().orElse(-1);
    StoreCommit commit = new StoreCommit(index, outDir, opts);
    ForkJoinPool pool = new ForkJoinPool(opts.parallelism());
    try {
      BuildPlan plan;
      FilterScan scan;
      try (StoreInspection found = StoreInspection.of(outDir, datadir, opts, pool, verified)) {
        plan = BuildPlan.decide(found.state(), source, datadir, index.tipHash(), txindexTip, opts);
        scan = new FilterScan(index, source, plan, opts, progress, commit, pool, found.summary());
      }
      List<String> removed = commit.removeVanished(plan.vanished());
      FilterScan.Outcome scanned = scan.run();

      List<String> rebuilt = new ArrayList<>(scanned.reasons().keySet());
      Map<String, String> reasons = new LinkedHashMap<>(scanned.reasons());
      List<String> kept =
          new ArrayList<>(scanned.kept().stream().map(FilterBuilder::reportName).toList());
      List<FileEntry> entries = new ArrayList<>(commit.dropFileFilters(scanned.kept(), removed));
      entries.addAll(scanned.written());

      SummaryEntry summary;
      if (scanned.summaryAction() == SummaryAction.KEEP) {
        summary = plan.keptFrom().summary();
        kept.add(summary.name());
      } else {
        long txKeys =
            entries.stream().mapToLong(FileEntry::keys).sum()
                + scanned.strays()
                + FilterScan.genesisCoinbases(index);
        summary =
            commit.writeSummary(
                scanned.builtSummary(),
                txKeys,
                scanned.summaryCapacity(),
                source.files().stream().mapToLong(FileSource::fSize).sum());
        rebuilt.add(summary.name());
        reasons.put(
            summary.name(),
            (scanned.summaryAction() == SummaryAction.UPDATE ? "updated: " : "rebuilt: ")
                + scanned.summaryReason());
      }
      BlockHashEntry blocks;
      if (plan.blockHashes().rebuild()) {
        blocks = commit.writeBlockHashes(source);
        rebuilt.add(blocks.name());
        reasons.put(blocks.name(), plan.blockHashes().reason());
      } else {
        blocks = plan.keptFrom().blocks();
        kept.add(blocks.name());
      }
      Manifest m =
          commit.writeManifest(
              plan.prior(), txindexTip, scanned.records(), summary, blocks, entries);
      return new BuildReport(
          rebuilt,
          reasons,
          kept,
          removed,
          scanned.summaryAction().word(),
          scanned.scans(),
          scanned.records(),
          scanned.strays(),
          Duration.ofNanos(System.nanoTime() - started),
          m);
    } finally {
      pool.shutdownNow();
    }
  }
}
