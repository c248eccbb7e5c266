package io.bbfindex.ingest.build;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.ingest.build.SourcePlan.FileSource;
import io.bbfindex.ingest.store.FilterFiles;
import io.bbfindex.ingest.store.FilterStoreException;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;

/** One execution of {@link FilterBuilder#build}; see its class comment for the algorithm. */
final class BuildRun {

  private enum SummaryMode { KEEP, UPDATE, REBUILD }

  private final ChainSource index;
  private final Path outDir;
  private final BuildOptions opts;
  private final ProgressListener progress;
  private final long started = System.nanoTime();

  private final Map<String, String> reasons = new LinkedHashMap<>();
  private final List<String> rebuilt = new ArrayList<>();
  private final List<String> kept = new ArrayList<>();
  private final List<String> removed = new ArrayList<>();
  /** Entries of the new manifest, by file number. */
  private final Map<Integer, FileEntry> entries = new TreeMap<>();

  BuildRun(ChainSource index, Path outDir, BuildOptions opts, ProgressListener progress) {
    this.index = index;
    this.outDir = outDir;
    this.opts = opts;
    this.progress = progress;
  }

  BuildReport run() throws IOException {
    SourcePlan plan = SourcePlan.of(index, outDir);
    String datadir = index.datadir().toString();
    Manifest old = null;
    String noOld;
    try {
      old = Manifest.read(outDir);
      noOld = incompatibility(old, datadir);
    } catch (FilterStoreException e) {
      noOld = Files.exists(outDir.resolve(Manifest.FILE_NAME)) ? "manifest unusable (" + e.getMessage() + ")"
          : "new store";
    }
    Manifest prior = noOld == null ? old : null;
    int txindexTip = index.txindexTipHeight().orElse(-1);
    boolean sourceMoved = prior == null || prior.txindexTipHeight() != txindexTip
        || !java.util.Arrays.equals(prior.tipHash(), index.tipHash());

    ForkJoinPool pool = new ForkJoinPool(opts.parallelism());
    try {
      // 1. which per-file filters stand
      Map<Integer, String> toRebuild = new TreeMap<>();
      // files whose txids may not all be in the old summary (as opposed to a damaged filter file)
      java.util.Set<Integer> changed = new java.util.TreeSet<>();
      Map<Integer, Long> capacities = new TreeMap<>();
      final String why = noOld;
      List<Optional<Verdict>> verdicts = parallel(pool, plan.files(), fs -> fileVerdict(fs, prior, why));
      for (int i = 0; i < plan.files().size(); i++) {
        FileSource fs = plan.files().get(i);
        if (verdicts.get(i).isPresent()) {
          toRebuild.put(fs.file(), verdicts.get(i).get().reason());
          if (verdicts.get(i).get().contentChanged()) {
            changed.add(fs.file());
          }
          capacities.put(fs.file(), fs.capacity());
        } else {
          FileEntry e = prior.file(fs.file()).orElseThrow();
          entries.put(fs.file(), e);
          kept.add(e.name());
        }
      }
      removeVanished(plan, old);

      // 2. the summary
      SummaryMode mode;
      String summaryReason = null;
      LoadedFilter oldSummary = null;
      if (prior == null) {
        mode = SummaryMode.REBUILD;
        summaryReason = noOld;
      } else {
        try {
          oldSummary = FilterFiles.loadExpected(outDir.resolve(prior.summary().name()), prior.summary().headerCrc());
          long expected = expectedTotal(plan, toRebuild);
          if (changed.isEmpty() && !sourceMoved) {
            mode = SummaryMode.KEEP;
          } else if (changed.isEmpty() && expected <= prior.summary().capacity()) {
            // the txindex moved without any 'f' record changing: the scan will tell
            mode = SummaryMode.UPDATE;
            summaryReason = "txids of block files whose row count changed added";
          } else if (expected <= prior.summary().capacity()) {
            mode = SummaryMode.UPDATE;
            summaryReason = "txids of the rebuilt block files added";
          } else {
            mode = SummaryMode.REBUILD;
            summaryReason = "about " + expected + " txids exceed its capacity " + prior.summary().capacity();
          }
        } catch (FilterStoreException e) {
          mode = SummaryMode.REBUILD;
          summaryReason = e.getMessage();
        }
      }

      // 3. scans
      BlockedBloomFilter summary = null;
      long summaryCapacity = prior == null ? 0 : prior.summary().capacity();
      if (mode == SummaryMode.UPDATE) {
        summary = BlockedBloomFilter.create(oldSummary.filter().geometry(), opts.salt());
        summary.union(oldSummary.filter());
      }
      if (oldSummary != null) {
        oldSummary.close();
      }
      if (mode == SummaryMode.REBUILD) {
        long expected = Math.max(1, expectedTotal(plan, toRebuild));
        BbfGeometry g = BbfSizing.forTarget((long) Math.ceil(expected * opts.summaryHeadroom()), opts.summaryFpr());
        summary = BlockedBloomFilter.create(g, opts.salt());
        summaryCapacity = FilterBuilder.capacity(g, opts.summaryFpr());
      }
      boolean[] summaryTakes = new boolean[plan.fileSlots()];
      boolean summaryPending = mode != SummaryMode.KEEP;
      if (mode == SummaryMode.UPDATE) {
        changed.forEach(f -> summaryTakes[f] = true);
      }
      boolean scanNeeded = !toRebuild.isEmpty() || mode != SummaryMode.KEEP || sourceMoved;
      int scans = 0;
      long records = prior == null ? 0 : prior.records();
      long strays = 0;
      long[] counts = null;
      Map<Integer, FileSource> sources = new HashMap<>();
      plan.files().forEach(fs -> sources.put(fs.file(), fs));
      TreeMap<Integer, Long> pending = new TreeMap<>(capacities);
      while (scanNeeded && (counts == null || !pending.isEmpty() || summaryPending)) {
        BlockedBloomFilter[] byFile = new BlockedBloomFilter[plan.fileSlots()];
        List<Integer> inScan = new ArrayList<>();
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
        BlockedBloomFilter summaryThisScan = summaryPending ? summary : null;
        if (summaryThisScan != null && mode == SummaryMode.REBUILD) {
          addGenesisCoinbase(summaryThisScan);
        }
        boolean[] takes = mode == SummaryMode.UPDATE ? summaryTakes.clone() : null;
        TxFilterPass pass = new TxFilterPass(byFile, summaryThisScan, takes, progress,
            (index.splitsByTxidRange() ? "scan txindex" : "hash blk files") + " (scan " + (scans + 1) + ")",
            plan.expectedRecords());
        ParallelTxScan.run(index, index.splitsByTxidRange() ? decoders(opts.parallelism()) : 0, pass);
        pass.finish();
        scans++;
        summaryPending = false;
        java.util.Arrays.fill(summaryTakes, false);
        if (counts == null) {
          counts = new long[plan.fileSlots()];
          for (int f = 0; f < counts.length; f++) {
            counts[f] = pass.count(f);
          }
          records = pass.records();
          strays = pass.strays();
          // a kept filter whose file gained or lost rows without its 'f' record changing
          for (FileEntry e : List.copyOf(entries.values())) {
            if (counts[e.file()] != e.keys()) {
              entries.remove(e.file());
              kept.remove(e.name());
              toRebuild.put(e.file(), "the txindex now has " + counts[e.file()] + " rows for it, the filter "
                  + e.keys());
              changed.add(e.file());
              pending.put(e.file(), Math.max(counts[e.file()], sources.get(e.file()).capacity()));
              if (mode == SummaryMode.UPDATE) {
                summaryTakes[e.file()] = true;
                summaryPending = true;
              }
            }
          }
          boolean strayRowsMissed = mode == SummaryMode.UPDATE && strays > 0;
          if (mode != SummaryMode.KEEP && (strayRowsMissed || records > summaryCapacity)) {
            // an updated summary cannot take rows of unknown files (it only takes rebuilt files),
            // and a summary beyond its capacity would exceed its FPR: build it afresh
            summaryReason = strayRowsMissed ? strays + " txindex rows name block files the block index lacks"
                : records + " txids exceed the summary's capacity " + summaryCapacity;
            summary.close();
            mode = SummaryMode.REBUILD;
            BbfGeometry g = BbfSizing.forTarget((long) Math.ceil(Math.max(records, summaryCapacity)
                * opts.summaryHeadroom()), opts.summaryFpr());
            summary = BlockedBloomFilter.create(g, opts.salt());
            summaryCapacity = FilterBuilder.capacity(g, opts.summaryFpr());
            summaryPending = true;
          }
        }
        long[] c = counts;
        List<Integer> done = new ArrayList<>();
        for (int f : inScan) {
          long planned = pending.remove(f);
          if (c[f] > planned) {
            // the block index undercounted: this filter would exceed its target FPR
            byFile[f].close();
            pending.put(f, c[f]);
            toRebuild.merge(f, "; resized to its " + c[f] + " rows", String::concat);
          } else {
            done.add(f);
          }
        }
        List<FileEntry> written = parallel(pool, done, f -> writeFileFilter(sources.get(f), byFile[f], c[f]));
        for (FileEntry e : written) {
          entries.put(e.file(), e);
          rebuilt.add(e.name());
          reasons.put(e.name(), toRebuild.get(e.file()));
        }
      }
      if (mode == SummaryMode.UPDATE && changed.isEmpty()) {
        // the txindex moved, but a count showed no block file changed: the old summary stands
        summary.close();
        mode = SummaryMode.KEEP;
      }

      // 4. summary, block hashes, manifest
      SummaryEntry summaryEntry;
      long txKeys = entries.values().stream().mapToLong(FileEntry::keys).sum() + strays + genesisCoinbases();
      if (mode == SummaryMode.KEEP) {
        summaryEntry = prior.summary();
        kept.add(summaryEntry.name());
      } else {
        Path p = outDir.resolve(FilterBuilder.SUMMARY_NAME);
        FilterFile.write(p, summary, new FilterMetadata(FilterMetadata.KIND_TX_SUMMARY, FilterMetadata.NO_BLOCK_FILE,
            plan.files().stream().mapToLong(FileSource::fSize).sum(), index.tipHash(), System.currentTimeMillis()));
        summary.close();
        summaryEntry = new SummaryEntry(FilterBuilder.SUMMARY_NAME, txKeys, summaryCapacity, FilterFiles.headerCrc(p));
        rebuilt.add(summaryEntry.name());
        reasons.put(summaryEntry.name(), (mode == SummaryMode.UPDATE ? "updated: " : "rebuilt: ") + summaryReason);
      }
      BlockHashEntry blocks = blockFilter(plan, prior, noOld);
      Manifest m = new Manifest(FilterFile.FORMAT_VERSION, System.currentTimeMillis(), datadir, index.tipHash(),
          index.tipHeight(), txindexTip, opts.salt() == 0 ? BlockedBloomFilter.DERIVATION_UNSALTED
              : BlockedBloomFilter.DERIVATION_SALTED, opts.salt(), opts.targetFpr(), opts.summaryFpr(), opts.summaryHeadroom(), records,
          summaryEntry, blocks, List.copyOf(entries.values()));
      m.write(outDir);
      return new BuildReport(rebuilt, reasons, kept, removed,
          mode == SummaryMode.KEEP ? "kept" : mode == SummaryMode.UPDATE ? "updated" : "rebuilt", scans, records,
          strays, Duration.ofNanos(System.nanoTime() - started), m);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Core never indexes the genesis coinbase, but NodeIndex.findTx answers it (from the block
   * index), so the summary holds it too: a lookup probing the summary first must not miss it. Its
   * txid is block 0's merkle root (header bytes 36..67).
   */
  private void addGenesisCoinbase(BlockedBloomFilter summary) {
    index.activeBlockAt(0).ifPresent(g -> summary.add(java.util.Arrays.copyOfRange(g.header(), 36, 68), 0));
  }

  private int genesisCoinbases() {
    return index.activeBlockAt(0).isPresent() ? 1 : 0;
  }

  /**
   * Decoder threads for a scan with {@code parallelism} cores: none below 3 cores. With two, one
   * decoder and one inserter only overlap the inserts (a small share of a row's cost) and pay a
   * hand-off per batch; measured on a shared 2-core machine it was slower than the inline scan.
   */
  static int decoders(int parallelism) {
    return parallelism >= 3 ? parallelism - 1 : 0;
  }

  /** Why the old manifest cannot be built upon, or null when it can. */
  private String incompatibility(Manifest old, String datadir) {
    if (old.filterFormatVersion() != FilterFile.FORMAT_VERSION) {
      return "filter format version " + old.filterFormatVersion() + " -> " + FilterFile.FORMAT_VERSION;
    }
    if (!old.datadir().equals(datadir)) {
      return "the store was built from another data directory (" + old.datadir() + ")";
    }
    if (old.salt() != opts.salt() || old.targetFpr() != opts.targetFpr() || old.summaryFpr() != opts.summaryFpr()) {
      return "build options changed (salt or target FPR)";
    }
    return null;
  }

  /**
   * Why a per-file filter must be rebuilt; {@code contentChanged}: its block file changed (or
   * nothing is known), so its txids must also reach the summary.
   */
  private record Verdict(String reason, boolean contentChanged) {}

  /** Empty when the existing filter of {@code fs} can be kept. */
  private Optional<Verdict> fileVerdict(FileSource fs, Manifest prior, String noPrior) {
    if (prior == null) {
      return Optional.of(new Verdict(noPrior, true));
    }
    Optional<FileEntry> e = prior.file(fs.file());
    if (e.isEmpty()) {
      return Optional.of(new Verdict("new block file", true));
    }
    FileEntry f = e.get();
    if (f.fBlocks() != fs.fBlocks() || f.fSize() != fs.fSize() || f.heightLast() != fs.heightLast()) {
      return Optional.of(new Verdict("block file changed ('f' record: blocks " + f.fBlocks() + " -> " + fs.fBlocks()
          + ", size " + f.fSize() + " -> " + fs.fSize() + ")", true));
    }
    try (LoadedFilter l = FilterFiles.loadExpected(outDir.resolve(f.name()), f.headerCrc())) {
      if (l.metadata().blockFile() != fs.file() || l.filter().count() != f.keys()) {
        return Optional.of(new Verdict("filter file does not describe block file " + fs.file() + " with "
            + f.keys() + " keys", false));
      }
      return Optional.empty();
    } catch (FilterStoreException x) {
      return Optional.of(new Verdict(x.getMessage(), false));
    }
  }

  private FileEntry writeFileFilter(FileSource fs, BlockedBloomFilter filter, long keys) {
    String name = FilterBuilder.fileFilterName(fs.file());
    Path p = outDir.resolve(name);
    try {
      FilterFile.write(p, filter, new FilterMetadata(FilterMetadata.KIND_TX_BLOCK_FILE, fs.file(), fs.fSize(),
          fs.lastBlock(), System.currentTimeMillis()));
      long capacity = FilterBuilder.capacity(filter.geometry(), opts.targetFpr());
      return new FileEntry(fs.file(), name, keys, capacity, fs.fBlocks(), fs.fSize(), fs.heightLast(),
          FilterFiles.headerCrc(p));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      filter.close();
    }
  }

  private BlockHashEntry blockFilter(SourcePlan plan, Manifest prior, String noPrior) throws IOException {
    String reason;
    if (prior == null) {
      reason = noPrior;
    } else if (!prior.blocks().digest().equals(plan.blockDigest())) {
      reason = "the block index changed (" + prior.blocks().keys() + " -> " + plan.blockHashes().size() + " blocks)";
    } else {
      try (LoadedFilter l = FilterFiles.loadExpected(outDir.resolve(prior.blocks().name()),
          prior.blocks().headerCrc())) {
        kept.add(prior.blocks().name());
        return prior.blocks();
      } catch (FilterStoreException e) {
        reason = e.getMessage();
      }
    }
    BbfGeometry g = BbfSizing.forTarget(Math.max(1, plan.blockHashes().size()), opts.targetFpr());
    Path p = outDir.resolve(FilterBuilder.BLOCKS_NAME);
    try (BlockedBloomFilter f = BlockedBloomFilter.create(g, opts.salt())) {
      for (byte[] h : plan.blockHashes()) {
        f.add(h, 0);
      }
      FilterFile.write(p, f, new FilterMetadata(FilterMetadata.KIND_BLOCK_HASHES, FilterMetadata.NO_BLOCK_FILE, 0,
          index.tipHash(), System.currentTimeMillis()));
    }
    rebuilt.add(FilterBuilder.BLOCKS_NAME);
    reasons.put(FilterBuilder.BLOCKS_NAME, reason);
    return new BlockHashEntry(FilterBuilder.BLOCKS_NAME, plan.blockHashes().size(), plan.blockDigest(),
        FilterFiles.headerCrc(p));
  }

  /** Deletes filters of block files the block index no longer has. */
  private void removeVanished(SourcePlan plan, Manifest old) throws IOException {
    if (old == null) {
      return;
    }
    java.util.Set<Integer> present = new java.util.HashSet<>();
    plan.files().forEach(fs -> present.add(fs.file()));
    for (FileEntry e : old.files()) {
      if (!present.contains(e.file()) && Files.deleteIfExists(outDir.resolve(e.name()))) {
        removed.add(e.name());
      }
    }
  }

  /** Keys the summary will hold: kept files' exact counts plus the planned capacity of the others. */
  private long expectedTotal(SourcePlan plan, Map<Integer, String> toRebuild) {
    long total = 0;
    for (FileSource fs : plan.files()) {
      FileEntry e = entries.get(fs.file());
      total += e != null && !toRebuild.containsKey(fs.file()) ? e.keys() : fs.capacity();
    }
    return total;
  }

  /** Maps {@code items} on the pool, in order, rethrowing an IOException thrown inside. */
  private static <T, R> List<R> parallel(ForkJoinPool pool, List<T> items, Function<T, R> f) throws IOException {
    try {
      return pool.submit(() -> items.parallelStream().map(f).toList()).get();
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IOException(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("build interrupted");
    }
  }
}
