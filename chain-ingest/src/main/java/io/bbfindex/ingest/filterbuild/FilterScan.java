package io.bbfindex.ingest.filterbuild;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.filterbuild.BuildPlan.SummaryAction;
import io.bbfindex.ingest.filterbuild.SourcePlan.FileSource;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ForkJoinPool;
import org.jspecify.annotations.Nullable;

/**
 * Carries out a {@link BuildPlan}'s rebuilds by scanning the txindex, within the memory budget:
 * each scan fills as many of the pending per-file filters as {@link
 * BuildOptions#memoryBudgetBytes()} holds (at least one) and, in the first scan, the summary, then
 * writes the filters it completed ({@link StoreCommit#writeFileFilter}) and frees them before the
 * next scan. With per-file filters off ({@link BuildOptions#fileFilters()}, the default) the scan
 * only counts the rebuilt files' rows and records them ({@link
 * StoreCommit#recordFileWithoutFilter}).
 *
 * <p>The first scan also counts the rows of every block file, which may change the plan:
 *
 * <ul>
 *   <li>a kept filter whose file now has another row count (the txindex caught up without its 'f'
 *       record changing) is rebuilt, and its txids reach an updated summary;
 *   <li>an updated summary that would miss rows of unknown block files, or any summary beyond its
 *       capacity, is rebuilt afresh in another scan;
 *   <li>a filter whose rows exceed the count it was sized for (a block index that undercounts) is
 *       dropped and rebuilt at its real count in another scan, so none exceeds its target FPR.
 * </ul>
 *
 * An update that turns out to add nothing (the tips moved but no file's rows changed) keeps the old
 * summary.
 */
final class FilterScan {

  /**
   * What the scans produced.
   *
   * @param written entries of the per-file filters written, in writing order
   * @param reasons per written filter's name, why it was rebuilt
   * @param kept entries of the per-file filters kept, in file order
   * @param summary the summary to write, null when {@code summaryAction} is KEEP
   * @param summaryCapacity keys the summary takes within its FPR
   * @param records txindex rows (the manifest's when nothing was scanned)
   * @param strays rows naming a block file the block index lacks
   * @param scans full scans of the txindex made
   */
  record Outcome(
      List<FileEntry> written,
      Map<String, String> reasons,
      List<FileEntry> kept,
      SummaryAction summaryAction,
      @Nullable String summaryReason,
      @Nullable BlockedBloomFilter summary,
      long summaryCapacity,
      long records,
      long strays,
      int scans) {

    /** The summary to write: the scans built one unless the action is KEEP. */
    BlockedBloomFilter builtSummary() {
      if (summary == null) {
        throw new IllegalStateException("the summary is " + summaryAction + ", none was built");
      }
      return summary;
    }
  }

  private final ChainSource index;
  private final SourcePlan source;
  private final BuildPlan plan;
  private final BuildOptions opts;
  private final ProgressListener progress;
  private final StoreCommit commit;
  private final ForkJoinPool pool;

  /** Why each file is rebuilt; grows when counts show more to rebuild or a filter is resized. */
  private final SortedMap<Integer, String> reasons = new TreeMap<>();

  /** Files whose txids the summary lacks (as opposed to damaged filter files). */
  private final Set<Integer> changed;

  /** Kept entries by file number; shrinks when counts show a kept filter is stale. */
  private final Map<Integer, FileEntry> kept = new TreeMap<>();

  private final Map<Integer, FileSource> sources = new HashMap<>();
  private final List<FileEntry> written = new ArrayList<>();
  private final Map<String, String> writtenReasons = new LinkedHashMap<>();

  private SummaryAction summaryAction;
  private @Nullable String summaryReason;
  private @Nullable BlockedBloomFilter summary;
  private long summaryCapacity;

  /**
   * Prepares the summary the scans fill: a copy of the verified old summary for an update (so the
   * old file can be unmapped before scanning), a new one sized for the plan's expected txids for a
   * rebuild.
   *
   * @param oldSummary the verified old summary; present when the plan updates it
   */
  FilterScan(
      ChainSource index,
      SourcePlan source,
      BuildPlan plan,
      BuildOptions opts,
      ProgressListener progress,
      StoreCommit commit,
      ForkJoinPool pool,
      Optional<BlockedBloomFilter> oldSummary) {
    this.index = index;
    this.source = source;
    this.plan = plan;
    this.opts = opts;
    this.progress = progress;
    this.commit = commit;
    this.pool = pool;
    plan.rebuild().forEach((f, r) -> reasons.put(f, r.reason()));
    changed = new java.util.TreeSet<>(plan.contentChanged());
    plan.kept().forEach(e -> kept.put(e.file(), e));
    source.files().forEach(fs -> sources.put(fs.file(), fs));
    summaryAction = plan.summary().action();
    summaryReason = plan.summary().reason();
    summaryCapacity = plan.prior() == null ? 0 : plan.prior().summary().capacity();
    if (summaryAction == SummaryAction.UPDATE) {
      BlockedBloomFilter old =
          oldSummary.orElseThrow(
              () -> new IllegalArgumentException("an update needs the old summary"));
      BlockedBloomFilter copy = BlockedBloomFilter.create(old.geometry(), opts.salt());
      copy.union(old);
      summary = copy;
    } else if (summaryAction == SummaryAction.REBUILD) {
      newSummary(Math.max(1, plan.summary().expectedKeys()));
    }
  }

  /** Replaces the summary by an empty one sized for {@code keys} txids with the headroom. */
  private void newSummary(long keys) {
    BbfGeometry g =
        BbfSizing.forTarget((long) Math.ceil(keys * opts.summaryHeadroom()), opts.summaryFpr());
    summary = BlockedBloomFilter.create(g, opts.salt());
    summaryCapacity = FilterBuilder.capacity(g, opts.summaryFpr());
  }

  /**
   * Scans as often as needed (not at all when the plan needs no scan).
   *
   * @throws IOException if writing a filter fails
   * @throws io.bbfindex.ingest.records.IndexReadException if a txindex row is corrupt
   */
  Outcome run() throws IOException {
    boolean[] summaryTakes = new boolean[source.fileSlots()];
    boolean summaryPending = summaryAction != SummaryAction.KEEP;
    if (summaryAction == SummaryAction.UPDATE) {
      changed.forEach(f -> summaryTakes[f] = true);
    }
    int scans = 0;
    long records = plan.prior() == null ? 0 : plan.prior().records();
    long strays = 0;
    long[] counts = null;
    TreeMap<Integer, Long> pending = new TreeMap<>();
    reasons.keySet().forEach(f -> pending.put(f, source(f).capacity()));
    while (plan.scanNeeded() && (counts == null || !pending.isEmpty() || summaryPending)) {
      @Nullable BlockedBloomFilter[] byFile = new BlockedBloomFilter[source.fileSlots()];
      List<Integer> inScan = fillWithinBudget(pending, counts, byFile);
      BlockedBloomFilter summaryThisScan = summaryPending ? summary : null;
      if (summaryThisScan != null && summaryAction == SummaryAction.REBUILD) {
        addGenesisCoinbase(summaryThisScan);
      }
      boolean[] takes = summaryAction == SummaryAction.UPDATE ? summaryTakes.clone() : null;
      TxFilterPass pass =
          new TxFilterPass(
              byFile,
              summaryThisScan,
              takes,
              progress,
              (index.splitsByTxidRange() ? "scan txindex" : "hash blk files")
                  + " (scan "
                  + (scans + 1)
                  + ")",
              source.expectedRecords());
      // Block data cannot be split by txid range: its source hashes whole blk files in parallel.
      ParallelTxScan.run(index, index.splitsByTxidRange() ? decoders(opts.parallelism()) : 0, pass);
      pass.finish();
      scans++;
      summaryPending = false;
      Arrays.fill(summaryTakes, false);
      if (counts == null) {
        counts = new long[source.fileSlots()];
        for (int f = 0; f < counts.length; f++) {
          counts[f] = pass.count(f);
        }
        records = pass.records();
        strays = pass.strays();
        summaryPending = recount(counts, records, strays, pending, summaryTakes);
      }
      writeCompleted(inScan, byFile, counts, pending);
    }
    if (summaryAction == SummaryAction.UPDATE && changed.isEmpty()) {
      // the txindex moved, but a count showed no block file changed: the old summary stands
      if (summary != null) {
        summary.close();
      }
      summary = null;
      summaryAction = SummaryAction.KEEP;
    }
    return new Outcome(
        written,
        writtenReasons,
        List.copyOf(kept.values()),
        summaryAction,
        summaryReason,
        summary,
        summaryCapacity,
        records,
        strays,
        scans);
  }

  /**
   * Creates the filters of the pending files this scan builds: in file order, as many as the memory
   * budget holds, at least one. Sizes for the rows an earlier scan counted when they exceed the
   * plan.
   */
  private List<Integer> fillWithinBudget(
      TreeMap<Integer, Long> pending,
      long @Nullable [] counts,
      @Nullable BlockedBloomFilter[] byFile) {
    List<Integer> inScan = new ArrayList<>();
    if (!opts.fileFilters()) {
      inScan.addAll(pending.keySet()); // only their rows are counted: no filter, no budget
      return inScan;
    }
    long bytes = 0;
    for (Map.Entry<Integer, Long> p : pending.entrySet()) {
      if (counts != null && counts[p.getKey()] > p.getValue()) {
        p.setValue(counts[p.getKey()]); // rows known from an earlier scan: size for them at once
      }
      BbfGeometry g = BbfSizing.forTarget(Math.max(1, p.getValue()), opts.targetFpr());
      if (!inScan.isEmpty() && bytes + g.byteSize() > opts.memoryBudgetBytes()) {
        break;
      }
      bytes += g.byteSize();
      byFile[p.getKey()] = BlockedBloomFilter.create(g, opts.salt());
      inScan.add(p.getKey());
    }
    return inScan;
  }

  /**
   * After the first scan: rebuilds kept filters whose row count changed and rebuilds the summary
   * afresh when an update would miss stray rows or any summary would exceed its capacity.
   *
   * @return whether the summary must take rows in the next scan
   */
  private boolean recount(
      long[] counts,
      long records,
      long strays,
      TreeMap<Integer, Long> pending,
      boolean[] summaryTakes) {
    boolean summaryPending = false;
    // a kept filter whose file gained or lost rows without its 'f' record changing
    for (FileEntry e : List.copyOf(kept.values())) {
      if (counts[e.file()] != e.keys()) {
        kept.remove(e.file());
        reasons.put(
            e.file(),
            "the txindex now has " + counts[e.file()] + " rows for it, the filter " + e.keys());
        changed.add(e.file());
        pending.put(e.file(), Math.max(counts[e.file()], source(e.file()).capacity()));
        if (summaryAction == SummaryAction.UPDATE) {
          summaryTakes[e.file()] = true;
          summaryPending = true;
        }
      }
    }
    boolean strayRowsMissed = summaryAction == SummaryAction.UPDATE && strays > 0;
    if (summaryAction != SummaryAction.KEEP && (strayRowsMissed || records > summaryCapacity)) {
      // an updated summary cannot take rows of unknown files (it only takes rebuilt files),
      // and a summary beyond its capacity would exceed its FPR: build it afresh
      summaryReason =
          strayRowsMissed
              ? strays + " txindex rows name block files the block index lacks"
              : records + " txids exceed the summary's capacity " + summaryCapacity;
      if (summary != null) {
        summary.close();
      }
      summaryAction = SummaryAction.REBUILD;
      newSummary(Math.max(records, summaryCapacity));
      summaryPending = true;
    }
    return summaryPending;
  }

  /**
   * Writes the filters of this scan that held all their rows; a filter that got more rows than it
   * was sized for (the block index undercounted) would exceed its target FPR: it goes back to
   * pending, sized for its real count.
   */
  private void writeCompleted(
      List<Integer> inScan,
      @Nullable BlockedBloomFilter[] byFile,
      long[] counts,
      TreeMap<Integer, Long> pending)
      throws IOException {
    List<Integer> done = new ArrayList<>();
    for (int f : inScan) {
      Long planned = pending.remove(f);
      if (planned == null) {
        throw new IllegalStateException("block file " + f + " was scanned but not pending");
      }
      BlockedBloomFilter filter = byFile[f];
      if (filter != null && counts[f] > planned) {
        filter.close();
        pending.put(f, counts[f]);
        reasons.merge(f, "; resized to its " + counts[f] + " rows", String::concat);
      } else {
        done.add(f);
      }
    }
    List<FileEntry> entries =
        Parallel.map(
            pool,
            done,
            f -> {
              try {
                BlockedBloomFilter filter = byFile[f];
                return filter == null
                    ? commit.recordFileWithoutFilter(source(f), counts[f])
                    : commit.writeFileFilter(source(f), filter, counts[f]);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    for (FileEntry e : entries) {
      written.add(e);
      writtenReasons.put(FilterBuilder.reportName(e), reasons.get(e.file()));
    }
  }

  /**
   * Core never indexes the genesis coinbase, but NodeIndex.findTx answers it (from the block
   * index), so the summary holds it too: a lookup probing the summary first must not miss it. Its
   * txid is block 0's merkle root.
   */
  private void addGenesisCoinbase(BlockedBloomFilter into) {
    index.activeBlockAt(0).ifPresent(g -> into.add(g.merkleRoot(), 0));
  }

  /** Txids the summary holds beyond the txindex's rows: the genesis coinbase, when there is one. */
  static int genesisCoinbases(ChainSource index) {
    return index.activeBlockAt(0).isPresent() ? 1 : 0;
  }

  /**
   * Decoder threads for a scan with {@code parallelism} cores: none below 3 cores. With two, one
   * decoder and one inserter only overlap the inserts (a small share of a row's cost) and pay a
   * hand-off per batch; on a shared 2-core machine it was slower than the inline scan (`./bbf-index
   * bench ingest --decoders 1` against the default; docs/benchmarks.md, "Ingest").
   */
  static int decoders(int parallelism) {
    return parallelism >= 3 ? parallelism - 1 : 0;
  }

  /** The node's block file {@code f}: every file the plan or a count names is one of them. */
  private FileSource source(int f) {
    FileSource fs = sources.get(f);
    if (fs == null) {
      throw new IllegalStateException("block file " + f + " is not one of the node's");
    }
    return fs;
  }
}
