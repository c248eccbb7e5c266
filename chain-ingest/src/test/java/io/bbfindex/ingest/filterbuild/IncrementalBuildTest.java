package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.FilterStoreException;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.ManifestFile;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-running the build: nothing changed means nothing rebuilt (and no scan); a changed 'f' record,
 * a deleted or corrupt filter file, a corrupt summary, a garbled manifest or changed options
 * rebuild exactly what they affect. Uses the two-file regtest fixture (150,401 txids), so every
 * decision has a file that must stay as it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncrementalBuildTest {

  private static final String BLK0 = "tx-blk00000.bbf";
  private static final String BLK1 = "tx-blk00001.bbf";

  @TempDir static Path tmp;

  private NodeIndex index;
  private List<TxRow> truth;
  private int storeCounter;

  @BeforeAll
  void open() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data"));
    index = NodeIndex.open(dd, tmp.resolve("work"));
    truth = Fixtures.txRows(Archive.REGTEST_MULTIFILE);
  }

  @AfterAll
  void close() throws IOException {
    index.close();
  }

  private Path freshStore() throws IOException {
    Path dir = tmp.resolve("store-" + storeCounter++);
    BuildReport first =
        FilterBuilder.build(
            index, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
    assertEquals(
        Set.of(BLK0, BLK1, FilterBuilder.SUMMARY_NAME, FilterBuilder.BLOCKS_NAME),
        Set.copyOf(first.rebuilt()));
    return dir;
  }

  private BuildReport again(Path dir) throws IOException {
    return FilterBuilder.build(
        index, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
  }

  private static Map<String, String> filterHashes(Path dir) throws IOException {
    return Fixtures.hashTree(dir).entrySet().stream()
        .filter(e -> e.getKey().endsWith(".bbf"))
        .collect(
            Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
  }

  private void assertNoFalseNegatives(Path dir) throws IOException {
    try (FilterStore s = FilterStore.open(dir)) {
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
        assertTrue(
            s.fileFilter(r.file()).orElseThrow().mightContain(r.txidInternal(), 0),
            "blk" + r.file() + " filter misses " + r.txidHex());
      }
    }
  }

  /** Rewrites the manifest (with a valid checksum) with file {@code file}'s entry changed. */
  static void editFileEntry(Path dir, int file, UnaryOperator<FileEntry> edit) throws IOException {
    Manifest m = ManifestFile.read(dir);
    ManifestFile.write(
        dir,
        m.withFiles(m.files().stream().map(f -> f.file() == file ? edit.apply(f) : f).toList()));
  }

  /**
   * Rewrites block file {@code file}'s manifest entry as if the file had been one block and 1,000
   * bytes shorter at build time.
   */
  static void shrinkBlockFileRecord(Path dir, int file) throws IOException {
    editFileEntry(
        dir,
        file,
        f ->
            new FileEntry(
                f.file(),
                f.name(),
                f.keys(),
                f.capacity(),
                f.fBlocks() - 1,
                f.fSize() - 1000,
                f.heightLast() - 1,
                f.headerCrc()));
  }

  private static void flipByte(Path file, long offset) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[(int) offset] ^= 0x10;
    Files.write(file, b);
  }

  /** Names of the per-file filter files in {@code dir}. */
  private static Set<String> fileFilterFiles(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("tx-blk"))
          .collect(Collectors.toSet());
    }
  }

  /**
   * The default build writes no per-file filter: the manifest keeps each block file's bookkeeping
   * (exact rows, 'f' record), the store maps the summary and the block-hash filter only, the
   * summary still holds every txid, and the incremental rules work from the bookkeeping alone.
   */
  @Test
  void byDefaultNoPerFileFilterIsWrittenAndOnlyTwoFiltersAreMapped() throws IOException {
    Path dir = tmp.resolve("store-" + storeCounter++);
    BuildReport first =
        FilterBuilder.build(index, dir, BuildOptions.defaults(), ProgressListener.NONE);
    assertEquals(
        Set.of(
            "blk00000.dat", "blk00001.dat", FilterBuilder.SUMMARY_NAME, FilterBuilder.BLOCKS_NAME),
        Set.copyOf(first.rebuilt()),
        first.describe());
    assertEquals(Set.of(), fileFilterFiles(dir));
    Manifest m = ManifestFile.read(dir);
    assertEquals(2, m.files().size());
    for (FileEntry e : m.files()) {
      assertEquals(FileEntry.NO_FILTER_FILE, e.name());
      assertEquals(truth.stream().filter(r -> r.file() == e.file()).count(), e.keys());
    }
    try (FilterStore s = FilterStore.open(dir)) {
      assertEquals(2, s.filters().size(), "summary and block hashes only");
      assertTrue(s.fileFilter(0).isEmpty() && s.fileFilter(1).isEmpty());
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
        assertEquals(List.of(), s.candidateFiles(r.txidInternal(), 0));
      }
    }
    BuildReport same =
        FilterBuilder.build(index, dir, BuildOptions.defaults(), ProgressListener.NONE);
    assertTrue(same.nothingRebuilt(), same.describe());
    assertEquals(0, same.scans());

    shrinkBlockFileRecord(dir, 1); // as if blk00001.dat had grown since the build
    BuildReport changed =
        FilterBuilder.build(index, dir, BuildOptions.defaults(), ProgressListener.NONE);
    assertEquals(Set.of("blk00001.dat", FilterBuilder.SUMMARY_NAME), Set.copyOf(changed.rebuilt()));
    assertEquals("updated", changed.summaryAction(), changed.describe());
    assertEquals(Set.of(), fileFilterFiles(dir));
    assertEquals(150_401, changed.manifest().txKeys());
  }

  /**
   * Turning per-file filters off deletes a store's filter files without a scan (their rows are in
   * the manifest); turning them on again builds them, and only them (the summary has their txids).
   */
  @Test
  void perFileFiltersAreDroppedWhenOffAndBuiltWhenOn() throws IOException {
    Path dir = freshStore();
    assertEquals(Set.of(BLK0, BLK1), fileFilterFiles(dir));
    BuildReport off =
        FilterBuilder.build(index, dir, BuildOptions.defaults(), ProgressListener.NONE);
    assertEquals(List.of(), off.rebuilt(), off.describe());
    assertEquals(0, off.scans());
    assertEquals(Set.of(BLK0, BLK1), Set.copyOf(off.removed()));
    assertEquals(Set.of(), fileFilterFiles(dir));
    try (FilterStore s = FilterStore.open(dir)) {
      assertEquals(2, s.filters().size());
    }
    BuildReport on = again(dir);
    assertEquals(Set.of(BLK0, BLK1), Set.copyOf(on.rebuilt()), on.describe());
    assertTrue(on.reasons().get(BLK0).contains("per-file filters off"), on.describe());
    assertEquals("kept", on.summaryAction());
    assertNoFalseNegatives(dir);
  }

  @Test
  void anUnchangedStoreIsVerifiedAndNothingIsRebuiltOrScanned() throws IOException {
    Path dir = freshStore();
    Map<String, String> before = filterHashes(dir);
    BuildReport r = again(dir);
    assertTrue(r.nothingRebuilt(), r.describe());
    assertEquals(0, r.scans(), "nothing changed: no txindex scan");
    assertEquals("kept", r.summaryAction());
    assertEquals(
        Set.of(BLK0, BLK1, FilterBuilder.SUMMARY_NAME, FilterBuilder.BLOCKS_NAME),
        Set.copyOf(r.kept()));
    assertEquals(before, filterHashes(dir));
    assertEquals(150_401, r.manifest().txKeys());
  }

  @Test
  void aChangedBlockFileRecordRebuildsOnlyThatFilterAndUpdatesTheSummary() throws IOException {
    Path dir = freshStore();
    Map<String, String> before = filterHashes(dir);
    long realSize = ManifestFile.read(dir).file(1).orElseThrow().fSize();
    // as if blk00001.dat had been shorter when the store was built: the node has grown since
    shrinkBlockFileRecord(dir, 1);
    BuildReport r = again(dir);
    assertEquals(Set.of(BLK1, FilterBuilder.SUMMARY_NAME), Set.copyOf(r.rebuilt()), r.describe());
    assertTrue(r.reasons().get(BLK1).contains("block file changed"), r.reasons().toString());
    assertEquals("updated", r.summaryAction());
    assertEquals(1, r.scans());
    Map<String, String> after = filterHashes(dir);
    assertEquals(before.get(BLK0), after.get(BLK0), "the unchanged file's filter is not rewritten");
    assertEquals(before.get(FilterBuilder.BLOCKS_NAME), after.get(FilterBuilder.BLOCKS_NAME));
    assertEquals(realSize, r.manifest().file(1).orElseThrow().fSize());
    assertNoFalseNegatives(dir);
    assertTrue(again(dir).nothingRebuilt(), "and then it is current");
  }

  @Test
  void aDeletedFilterFileIsRebuiltAloneAndTheSummaryIsKept() throws IOException {
    Path dir = freshStore();
    Map<String, String> before = filterHashes(dir);
    Files.delete(dir.resolve(BLK0));
    FilterStoreException e = assertThrows(FilterStoreException.class, () -> FilterStore.open(dir));
    assertTrue(e.getMessage().contains(BLK0) && e.getMessage().contains("missing"), e.getMessage());
    BuildReport r = again(dir);
    assertEquals(List.of(BLK0), r.rebuilt(), r.describe());
    assertEquals("kept", r.summaryAction(), "its txids are still in the summary");
    assertEquals(before.get(BLK1), filterHashes(dir).get(BLK1));
    assertNoFalseNegatives(dir);
  }

  @Test
  void aFlippedByteIsDetectedByChecksumNamedAtOpenAndEnsureBuiltRebuildsIt() throws IOException {
    Path dir = freshStore();
    Path victim = dir.resolve(BLK1);
    flipByte(
        victim, FilterFile.DATA_OFFSET + 4242); // a bit of the filter: refused by the data checksum
    FilterStoreException e = assertThrows(FilterStoreException.class, () -> FilterStore.open(dir));
    assertEquals(List.of(victim), e.badFiles());
    assertTrue(
        e.getMessage().startsWith(victim.toString()) && e.getMessage().contains("checksum"),
        e.getMessage());
    try (FilterStore s =
        FilterBuilder.ensureBuilt(
            index, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE)) {
      assertEquals(2, s.manifest().files().size());
    }
    assertNoFalseNegatives(dir);

    flipByte(victim, FilterFile.DATA_OFFSET / 3); // a header byte: refused by the header checksum
    e = assertThrows(FilterStoreException.class, () -> FilterStore.open(dir));
    assertEquals(List.of(victim), e.badFiles());
    BuildReport r = again(dir);
    assertEquals(List.of(BLK1), r.rebuilt());
  }

  @Test
  void ensureBuiltServesTheStoreItVerifiedAndLeavesItsManifestAsItWas() throws IOException {
    Path dir = freshStore();
    Manifest before = ManifestFile.read(dir);
    Path manifestFile = dir.resolve(ManifestFile.FILE_NAME);
    BasicFileAttributes was = Files.readAttributes(manifestFile, BasicFileAttributes.class);
    try (FilterStore s =
        FilterBuilder.ensureBuilt(
            index, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE)) {
      // the build rebuilt nothing: the manifest is not written again, and is the one served
      BasicFileAttributes is = Files.readAttributes(manifestFile, BasicFileAttributes.class);
      assertEquals(was.fileKey(), is.fileKey(), "the manifest was replaced");
      assertEquals(was.lastModifiedTime(), is.lastModifiedTime(), "the manifest was rewritten");
      Manifest now = ManifestFile.read(dir);
      assertEquals(before, now);
      assertEquals(now, s.manifest());
      assertEquals(java.util.Optional.empty(), s.changedOnDisk());
      assertTrue(s.manifestUnchanged());
      // the same manifest renamed over it: not a change to verify again, but another file that
      // whoever compares manifests must parse again
      ManifestFile.write(dir, now);
      assertEquals(java.util.Optional.empty(), s.changedOnDisk());
      assertFalse(s.manifestUnchanged());
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
      }
      assertEquals(4, s.filterCount());
    }
    assertEquals(
        filterHashes(dir).keySet(),
        Set.of(BLK0, BLK1, FilterBuilder.SUMMARY_NAME, FilterBuilder.BLOCKS_NAME));
  }

  @Test
  void ensureBuiltOpensAgainWhatTheBuildChangedAfterItWasVerified() throws IOException {
    Path dir = freshStore(); // with per-file filters: valid, and verified first by ensureBuilt
    try (FilterStore s =
        FilterBuilder.ensureBuilt(index, dir, BuildOptions.defaults(), ProgressListener.NONE)) {
      // the build dropped the per-file filters: the store served is the one now on disk
      assertEquals(2, s.filterCount());
      assertEquals(ManifestFile.read(dir), s.manifest());
      assertTrue(s.manifest().files().stream().noneMatch(FileEntry::hasFilterFile));
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
      }
    }
  }

  /**
   * The start-up path of {@code serve}: the store verified on its own thread while the node's index
   * opens ({@link VerifiedAhead}), then checked against the node. Unchanged, it is served with
   * nothing rebuilt; a store whose block digest is not the node's has its block-hash filter
   * rebuilt; a damaged summary is refused by the verification and rebuilt, never served.
   */
  @Test
  void aStoreVerifiedAheadIsCheckedAgainstTheNodeAsIfOpenedByEnsureBuilt() throws IOException {
    Path dir = freshStore();
    BuildOptions opts = BuildOptions.defaults().withFileFilters(true);
    Map<String, String> before = filterHashes(dir);
    Manifest built = ManifestFile.read(dir);
    try (VerifiedAhead ahead = verifiedAhead(dir);
        FilterStore s = FilterBuilder.ensureBuilt(index, dir, opts, ProgressListener.NONE, ahead)) {
      assertEquals(before, filterHashes(dir)); // nothing rewritten
      assertEquals(ManifestFile.read(dir), s.manifest());
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
      }
    }

    // a block digest that is not the node's: as if the store had been built for another index
    Manifest m = ManifestFile.read(dir);
    Manifest.BlockHashEntry b = m.blocks();
    ManifestFile.write(
        dir,
        m.withBlocks(
            new Manifest.BlockHashEntry(b.name(), b.keys(), "ab".repeat(32), b.headerCrc())));
    try (VerifiedAhead ahead = verifiedAhead(dir);
        FilterStore s = FilterBuilder.ensureBuilt(index, dir, opts, ProgressListener.NONE, ahead)) {
      assertEquals(built.blocks().digest(), s.manifest().blocks().digest());
      assertEquals(built.blocks().digest(), ManifestFile.read(dir).blocks().digest());
    }

    Path summary = dir.resolve(FilterBuilder.SUMMARY_NAME);
    flipByte(summary, Files.size(summary) - 1);
    String damaged = filterHashes(dir).get(FilterBuilder.SUMMARY_NAME);
    try (VerifiedAhead ahead = verifiedAhead(dir);
        FilterStore s = FilterBuilder.ensureBuilt(index, dir, opts, ProgressListener.NONE, ahead)) {
      assertTrue(!damaged.equals(filterHashes(dir).get(FilterBuilder.SUMMARY_NAME)));
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
      }
    }
    assertNoFalseNegatives(dir);
  }

  /** As serve starts it, but its copies made at once (no server to wait for). */
  private static VerifiedAhead verifiedAhead(Path dir) {
    return VerifiedAhead.start(
        dir, FilterStore.copiesAfter(CompletableFuture.completedFuture(null)));
  }

  /** A store verified ahead but never taken (the node's index failed to open) is freed. */
  @Test
  void aStoreVerifiedAheadAndNotTakenIsClosedAndCannotBeTakenAfter() throws IOException {
    Path dir = freshStore();
    VerifiedAhead ahead = verifiedAhead(dir);
    ahead.close();
    ahead.close();
    assertThrows(
        IllegalStateException.class,
        () ->
            FilterBuilder.ensureBuilt(
                index, dir, BuildOptions.defaults(), ProgressListener.NONE, ahead));
    try (VerifiedAhead other = verifiedAhead(dir)) {
      assertThrows(
          IllegalArgumentException.class,
          () ->
              FilterBuilder.ensureBuilt(
                  index,
                  tmp.resolve("elsewhere"),
                  BuildOptions.defaults(),
                  ProgressListener.NONE,
                  other));
    }
  }

  @Test
  void aCorruptSummaryIsNamedAndRebuiltFromAFullScan() throws IOException {
    Path dir = freshStore();
    Map<String, String> before = filterHashes(dir);
    Path summary = dir.resolve(FilterBuilder.SUMMARY_NAME);
    flipByte(summary, Files.size(summary) - 1);
    FilterStoreException e = assertThrows(FilterStoreException.class, () -> FilterStore.open(dir));
    assertTrue(e.getMessage().contains(FilterBuilder.SUMMARY_NAME), e.getMessage());
    BuildReport r = again(dir);
    assertEquals(List.of(FilterBuilder.SUMMARY_NAME), r.rebuilt(), r.describe());
    assertEquals("rebuilt", r.summaryAction());
    assertEquals(1, r.scans());
    Map<String, String> after = filterHashes(dir);
    assertEquals(before.get(BLK0), after.get(BLK0));
    assertEquals(before.get(BLK1), after.get(BLK1));
    assertNoFalseNegatives(dir);
  }

  @Test
  void aSwappedButValidFilterFileIsRefusedAsNotTheManifests() throws IOException {
    Path dir = freshStore();
    Files.copy(
        dir.resolve(BLK0), dir.resolve(BLK1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    FilterStoreException e = assertThrows(FilterStoreException.class, () -> FilterStore.open(dir));
    assertEquals(List.of(dir.resolve(BLK1)), e.badFiles());
    assertEquals(List.of(BLK1), again(dir).rebuilt());
  }

  @Test
  void aMovedTxindexWithUnchangedFilesIsCountedOnceAndNothingRebuilt() throws IOException {
    Path dir = freshStore();
    Manifest m = ManifestFile.read(dir);
    ManifestFile.write(dir, m.withTxindexTipHeight(m.txindexTipHeight() - 1));
    BuildReport r = again(dir);
    assertEquals(1, r.scans(), "rows are counted per file");
    assertTrue(r.nothingRebuilt(), r.describe());
    assertEquals("kept", r.summaryAction());
  }

  @Test
  void aGarbledManifestRebuildsEverythingAndChangedOptionsToo() throws IOException {
    Path dir = freshStore();
    flipByte(dir.resolve(ManifestFile.FILE_NAME), 30);
    BuildReport r = again(dir);
    assertEquals(4, r.rebuilt().size());
    assertTrue(r.reasons().get(BLK0).contains("manifest unusable"), r.reasons().toString());

    r =
        FilterBuilder.build(
            index,
            dir,
            BuildOptions.defaults().withFileFilters(true).withTargetFpr(0.001),
            ProgressListener.NONE);
    assertEquals(4, r.rebuilt().size());
    assertTrue(r.reasons().get(BLK1).contains("options"), r.reasons().toString());
    try (FilterStore s = FilterStore.open(dir)) {
      s.filters().forEach(f -> assertTrue(f.modelledFpr() <= 0.001, f.toString()));
    }
  }

  @Test
  void aSmallMemoryBudgetAndARangeSplitScanGiveIdenticalFilters() throws IOException {
    Path normal = tmp.resolve("sequential");
    FilterBuilder.build(
        index,
        normal,
        BuildOptions.defaults().withFileFilters(true).withParallelism(1),
        ProgressListener.NONE);
    Path tight = tmp.resolve("tight");
    // 4 threads: 3 decoders over txid ranges + 1 inserter; 1-byte budget: one file per scan
    BuildReport r =
        FilterBuilder.build(
            index,
            tight,
            BuildOptions.defaults().withFileFilters(true).withMemoryBudget(1).withParallelism(4),
            ProgressListener.NONE);
    assertEquals(2, r.scans(), "one file per scan");
    try (FilterStore a = FilterStore.open(normal);
        FilterStore b = FilterStore.open(tight)) {
      for (int f = 0; f < 2; f++) {
        BlockedBloomFilter x = a.fileFilter(f).orElseThrow();
        BlockedBloomFilter y = b.fileFilter(f).orElseThrow();
        assertEquals(-1, x.bits().mismatch(y.bits()), "blk" + f + " filter bits differ");
      }
      assertEquals(-1, a.summaryFilter().bits().mismatch(b.summaryFilter().bits()));
    }
  }

  @Test
  void aSaltedStoreHasNoFalseNegativesEither() throws IOException {
    Path dir = tmp.resolve("salted");
    FilterBuilder.build(
        index,
        dir,
        BuildOptions.defaults().withFileFilters(true).withSalt(0x5A17_5A17L),
        ProgressListener.NONE);
    assertEquals(2, ManifestFile.read(dir).derivationId());
    assertNoFalseNegatives(dir);
  }
}
