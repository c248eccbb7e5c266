package io.bbfindex.ingest.filterbuild;

import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.ingest.filterbuild.SourcePlan.FileSource;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What a build must do, decided before any txindex row is read: a pure function ({@link #decide})
 * of what stands in the store ({@link StoreState}) and what the node holds now ({@link SourcePlan}
 * and its tips). The scan may still find, from row counts, that more must be rebuilt ({@link
 * FilterScan}); everything decidable without counting rows is decided here.
 *
 * <ul>
 *   <li>A per-file filter is kept when a usable manifest lists it with the node's current {@code
 *       'f'} record (nBlocks, nSize, nHeightLast) and its file verified; otherwise it is rebuilt,
 *       and when its block file changed or nothing is known, its txids must also reach the summary.
 *   <li>The summary is kept when no block file changed and the tips did not move; updated (the
 *       changed files' txids added) while the txids expected fit its capacity; else rebuilt.
 *   <li>The block-hash filter is kept while the digest of the node's block hashes is the one the
 *       manifest recorded and its file verified.
 * </ul>
 *
 * @param prior the manifest the build builds upon, or null
 * @param noPrior why there is none (also the reason given for rebuilding everything), or null
 * @param sourceMoved whether the node's tip or txindex tip differs from the manifest's
 * @param rebuild per block file number to rebuild, why
 * @param kept the manifest's entries of the per-file filters kept, in file order
 * @param vanished entries of the manifest found (usable or not) whose block file the node no longer
 *     has: their filter files are deleted
 * @param summary what happens to the summary
 * @param blockHashes what happens to the block-hash filter
 */
record BuildPlan(
    @Nullable Manifest prior,
    @Nullable String noPrior,
    boolean sourceMoved,
    SortedMap<Integer, FileRebuild> rebuild,
    List<FileEntry> kept,
    List<FileEntry> vanished,
    SummaryPlan summary,
    BlockHashPlan blockHashes) {

  /** What a build does to the summary filter; {@link #word()} is how the report says it. */
  enum SummaryAction {
    KEEP("kept"),
    UPDATE("updated"),
    REBUILD("rebuilt");

    private final String word;

    SummaryAction(String word) {
      this.word = word;
    }

    String word() {
      return word;
    }
  }

  /**
   * Why a per-file filter is rebuilt; {@code contentChanged}: its block file changed (or nothing is
   * known), so its txids must also reach the summary, as opposed to a damaged filter file whose
   * txids the summary already has.
   */
  record FileRebuild(String reason, boolean contentChanged) {}

  /**
   * @param reason why it is updated or rebuilt; null when kept
   * @param expectedKeys txids it will hold: the kept files' exact counts plus the planned capacity
   *     of the others
   */
  record SummaryPlan(SummaryAction action, @Nullable String reason, long expectedKeys) {}

  /**
   * @param reason why the block-hash filter is rebuilt; null when it is kept
   */
  record BlockHashPlan(@Nullable String reason) {
    boolean rebuild() {
      return reason != null;
    }
  }

  BuildPlan {
    rebuild = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(rebuild));
    kept = List.copyOf(kept);
    vanished = List.copyOf(vanished);
  }

  /**
   * Decides what to rebuild.
   *
   * @param stands what the store directory holds
   * @param node the node's block files and block hashes
   * @param datadir the node's data directory, as the manifest records it
   * @param tipHash the node's active tip (internal byte order)
   * @param txindexTip the txindex's tip height, -1 if it never committed
   */
  static BuildPlan decide(
      StoreState stands,
      SourcePlan node,
      String datadir,
      byte[] tipHash,
      int txindexTip,
      BuildOptions opts) {
    Manifest found = stands.manifest();
    String noPrior = found == null ? stands.noManifest() : incompatibility(found, datadir, opts);
    if (noPrior == null && found != null && !node.holdsBlock(found.tipHash())) {
      // the datadir at the same path now holds another chain: an update would keep the old txids
      noPrior =
          "the store's tip block "
              + io.bbfindex.ingest.encoding.HashKeys.toDisplayHex(found.tipHash())
              + " is not in the node's block index (another chain)";
    }
    Manifest prior = noPrior == null ? found : null;
    boolean sourceMoved =
        prior == null
            || prior.txindexTipHeight() != txindexTip
            || !Arrays.equals(prior.tipHash(), tipHash);

    SortedMap<Integer, FileRebuild> rebuild = new TreeMap<>();
    List<FileEntry> kept = new ArrayList<>();
    Set<Integer> present = new HashSet<>();
    long expectedKeys = 0;
    for (FileSource fs : node.files()) {
      present.add(fs.file());
      Optional<FileRebuild> why = fileVerdict(fs, prior, noPrior, stands);
      if (why.isEmpty() && prior != null) {
        FileEntry e = prior.file(fs.file()).orElseThrow();
        kept.add(e);
        expectedKeys += e.keys();
      } else {
        rebuild.put(fs.file(), why.orElseThrow());
        expectedKeys += fs.capacity();
      }
    }
    List<FileEntry> vanished =
        found == null
            ? List.of()
            : found.files().stream().filter(e -> !present.contains(e.file())).toList();
    boolean contentChanged = rebuild.values().stream().anyMatch(FileRebuild::contentChanged);
    return new BuildPlan(
        prior,
        noPrior,
        sourceMoved,
        rebuild,
        kept,
        vanished,
        summaryPlan(prior, noPrior, stands.badSummary(), contentChanged, sourceMoved, expectedKeys),
        blockHashPlan(prior, noPrior, stands.badBlockHashes(), node));
  }

  /** Block files whose txids may not all be in the old summary. */
  Set<Integer> contentChanged() {
    Set<Integer> out = new java.util.TreeSet<>();
    rebuild.forEach(
        (f, r) -> {
          if (r.contentChanged()) {
            out.add(f);
          }
        });
    return out;
  }

  /**
   * Whether the txindex must be read: to rebuild something, or to count rows when the tips moved (a
   * file's rows may have changed without its 'f' record changing).
   */
  boolean scanNeeded() {
    return !rebuild.isEmpty() || summary.action() != SummaryAction.KEEP || sourceMoved;
  }

  /**
   * Why a manifest cannot be built upon (its filters were made from another source or in another
   * way), or null when it can.
   */
  static @Nullable String incompatibility(Manifest old, String datadir, BuildOptions opts) {
    // Older filter files stay valid (every file names its own format version, and version 1
    // files load and answer as before): a store of version 1 files is built upon, its kept files
    // stay version 1 and the files it rebuilds are written in the current version. Only a store
    // from a newer version is refused.
    if (old.filterFormatVersion() > FilterFile.FORMAT_VERSION) {
      return "filter format version "
          + old.filterFormatVersion()
          + " is newer than this build's "
          + FilterFile.FORMAT_VERSION;
    }
    if (!old.datadir().equals(datadir)) {
      return "the store was built from another data directory (" + old.datadir() + ")";
    }
    if (old.salt() != opts.salt()
        || old.targetFpr() != opts.targetFpr()
        || old.summaryFpr() != opts.summaryFpr()) {
      return "build options changed (salt or target FPR)";
    }
    return null;
  }

  /** Empty when the existing filter of {@code fs} can be kept. */
  private static Optional<FileRebuild> fileVerdict(
      FileSource fs, @Nullable Manifest prior, @Nullable String noPrior, StoreState stands) {
    if (prior == null) {
      return Optional.of(new FileRebuild(noPriorReason(noPrior), true));
    }
    Optional<FileEntry> e = prior.file(fs.file());
    if (e.isEmpty()) {
      return Optional.of(new FileRebuild("new block file", true));
    }
    FileEntry f = e.get();
    if (f.fBlocks() != fs.fBlocks()
        || f.fSize() != fs.fSize()
        || f.heightLast() != fs.heightLast()) {
      return Optional.of(
          new FileRebuild(
              "block file changed ('f' record: blocks "
                  + f.fBlocks()
                  + " -> "
                  + fs.fBlocks()
                  + ", size "
                  + f.fSize()
                  + " -> "
                  + fs.fSize()
                  + ")",
              true));
    }
    String bad = stands.badFileFilters().get(fs.file());
    return bad == null ? Optional.empty() : Optional.of(new FileRebuild(bad, false));
  }

  private static SummaryPlan summaryPlan(
      @Nullable Manifest prior,
      @Nullable String noPrior,
      @Nullable String badSummary,
      boolean contentChanged,
      boolean sourceMoved,
      long expected) {
    if (prior == null) {
      return new SummaryPlan(SummaryAction.REBUILD, noPrior, expected);
    }
    if (badSummary != null) {
      return new SummaryPlan(SummaryAction.REBUILD, badSummary, expected);
    }
    long capacity = prior.summary().capacity();
    if (!contentChanged && !sourceMoved) {
      return new SummaryPlan(SummaryAction.KEEP, null, expected);
    }
    if (!contentChanged && expected <= capacity) {
      // the txindex moved without any 'f' record changing: the scan will tell
      return new SummaryPlan(
          SummaryAction.UPDATE, "txids of block files whose row count changed added", expected);
    }
    if (expected <= capacity) {
      return new SummaryPlan(
          SummaryAction.UPDATE, "txids of the rebuilt block files added", expected);
    }
    return new SummaryPlan(
        SummaryAction.REBUILD,
        "about " + expected + " txids exceed its capacity " + capacity,
        expected);
  }

  private static BlockHashPlan blockHashPlan(
      @Nullable Manifest prior,
      @Nullable String noPrior,
      @Nullable String badBlockHashes,
      SourcePlan node) {
    if (prior == null) {
      return new BlockHashPlan(noPriorReason(noPrior));
    }
    if (!prior.blocks().digest().equals(node.blockDigest())) {
      return new BlockHashPlan(
          "the block index changed ("
              + prior.blocks().keys()
              + " -> "
              + node.blockHashes().size()
              + " blocks)");
    }
    return new BlockHashPlan(badBlockHashes);
  }

  /**
   * Why nothing of the store is built upon: {@link #decide} has a reason whenever it has no prior
   * manifest (the store's state names why it has none, or the manifest found is refused).
   */
  private static String noPriorReason(@Nullable String noPrior) {
    if (noPrior == null) {
      throw new IllegalStateException("no prior manifest, and no reason why");
    }
    return noPrior;
  }

  /** The manifest built upon: there is one wherever the plan keeps a filter. */
  Manifest keptFrom() {
    if (prior == null) {
      throw new IllegalStateException("the plan keeps a filter without a prior manifest");
    }
    return prior;
  }
}
