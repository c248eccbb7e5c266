package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.BlockFileInfo;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.store.FilterInfo;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.ManifestFile;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The builder's recovery paths, driven by the real two-file regtest fixture seen through a
 * distorting {@link ChainSource}: a block index that undercounts (filters resized, never above the
 * target FPR), txindex rows naming an unknown block file (kept in the summary), and a txindex that
 * catches up without any 'f' record changing (the files whose row count changed are rebuilt).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistortedSourceBuildTest {

  private static final long SEED = 0xD157_0A7EL;

  @TempDir static Path tmp;

  private NodeIndex index;
  private ChainSource real;
  private List<TxRow> truth;

  @BeforeAll
  void open() throws IOException {
    index =
        NodeIndex.open(
            Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data")), tmp.resolve("work"));
    real = ChainSource.of(index);
    truth = Fixtures.txRows(Archive.REGTEST_MULTIFILE);
  }

  @AfterAll
  void close() throws IOException {
    index.close();
  }

  /** Delegates everything to the real source; tests override what they distort. */
  private class Wrapped implements ChainSource {
    @Override
    public Path datadir() {
      return real.datadir();
    }

    @Override
    public Collection<BlockInfo> blocks() {
      return real.blocks();
    }

    @Override
    public Map<Integer, BlockFileInfo> blockFiles() {
      return real.blockFiles();
    }

    @Override
    public int tipHeight() {
      return real.tipHeight();
    }

    @Override
    public byte[] tipHash() {
      return real.tipHash();
    }

    @Override
    public OptionalInt txindexTipHeight() {
      return real.txindexTipHeight();
    }

    @Override
    public Optional<BlockInfo> activeBlockAt(int height) {
      return real.activeBlockAt(height);
    }

    @Override
    public void forEachTx(int from, int to, TxRecordConsumer c) {
      real.forEachTx(from, to, c);
    }
  }

  private void assertNoFalseNegatives(Path dir) throws IOException {
    try (FilterStore s = FilterStore.open(dir)) {
      for (TxRow r : truth) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
        assertTrue(
            s.fileFilter(r.file()).orElseThrow().mightContain(r.txidInternal(), 0), r.txidHex());
      }
    }
  }

  @Test
  void aBlockIndexThatUndercountsGetsFiltersResizedToTheirRealRows() throws IOException {
    ChainSource undercounting =
        new Wrapped() {
          @Override
          public Collection<BlockInfo> blocks() {
            return real.blocks().stream()
                .map(
                    b ->
                        new BlockInfo(
                            b.hash(),
                            b.height(),
                            b.status(),
                            b.txCount() / 4,
                            b.file(),
                            b.dataPos(),
                            b.undoPos(),
                            b.header(),
                            b.onActiveChain(),
                            b.confirmations()))
                .toList();
          }
        };
    Path dir = tmp.resolve("undercount");
    BuildReport r =
        FilterBuilder.build(
            undercounting,
            dir,
            BuildOptions.defaults().withFileFilters(true),
            ProgressListener.NONE);
    assertEquals(2, r.scans(), r.describe());
    assertTrue(
        r.reasons().get("tx-blk00000.bbf").contains("resized to its 135386 rows"), r.describe());
    try (FilterStore s = FilterStore.open(dir)) {
      for (FilterInfo i : s.filters()) {
        assertTrue(i.modelledFpr() <= 0.01, "no filter above its target: " + i);
      }
    }
    assertNoFalseNegatives(dir);
  }

  @Test
  void rowsOfUnknownBlockFilesStayInTheSummaryEvenWhenItWouldOnlyBeUpdated() throws IOException {
    byte[][] strays = new byte[500][32];
    SplittableRandom rnd = new SplittableRandom(SEED);
    for (byte[] s : strays) {
      rnd.nextBytes(s);
    }
    ChainSource withStrays =
        new Wrapped() {
          @Override
          public void forEachTx(int from, int to, TxRecordConsumer c) {
            real.forEachTx(from, to, c);
            for (byte[] s : strays) {
              if ((s[0] & 0xFF) >= from && (s[0] & 0xFF) < to) {
                c.accept(s, 7, 8, 1); // blk00007.dat: the block index has no such file
              }
            }
          }
        };
    Path dir = tmp.resolve("strays");
    BuildReport r =
        FilterBuilder.build(
            withStrays, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
    assertEquals(500, r.strayRecords());
    assertTrue(
        r.describe().contains("500 txindex rows name block files the block index lacks"),
        r.describe());
    // a changed file would normally only update the summary; with stray rows it is rebuilt whole
    IncrementalBuildTest.editFileEntry(
        dir,
        1,
        f ->
            new Manifest.FileEntry(
                1,
                f.name(),
                f.keys(),
                f.capacity(),
                f.fBlocks(),
                f.fSize() - 1,
                f.heightLast(),
                f.headerCrc()));
    r =
        FilterBuilder.build(
            withStrays, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
    assertEquals("rebuilt", r.summaryAction(), r.describe());
    assertEquals(2, r.scans());
    try (FilterStore s = FilterStore.open(dir)) {
      for (byte[] stray : strays) {
        assertTrue(s.mightContainTx(stray, 0), "stray row lost from the summary");
      }
      assertEquals(truth.size() + 500 + 1, s.manifest().summary().keys());
    }
    assertNoFalseNegatives(dir);
  }

  @Test
  void aTxindexCatchingUpWithoutFileChangesRebuildsTheFilesWhoseRowsChanged() throws IOException {
    // first seen while the txindex lags: half of blk00001's rows are not indexed yet
    ChainSource lagging =
        new Wrapped() {
          @Override
          public OptionalInt txindexTipHeight() {
            return OptionalInt.of(real.txindexTipHeight().orElseThrow() - 10);
          }

          @Override
          public void forEachTx(int from, int to, TxRecordConsumer c) {
            real.forEachTx(
                from,
                to,
                (txid, file, pos, off) -> {
                  if (file != 1 || txid[0] >= 0) {
                    c.accept(txid, file, pos, off);
                  }
                });
          }
        };
    Path dir = tmp.resolve("lagging");
    FilterBuilder.build(
        lagging, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
    long before = ManifestFile.read(dir).file(1).orElseThrow().keys();
    assertTrue(before < 15_015 && before > 5_000, "blk00001 rows while lagging: " + before);

    BuildReport r =
        FilterBuilder.build(
            real, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
    assertEquals(List.of("tx-blk00001.bbf", "tx-summary.bbf"), r.rebuilt(), r.describe());
    assertTrue(
        r.reasons()
            .get("tx-blk00001.bbf")
            .contains("the txindex now has 15015 rows for it, the filter " + before),
        r.describe());
    assertEquals("updated", r.summaryAction());
    assertEquals(
        2, r.scans(), "one to count, one to fill the changed file and add its rows to the summary");
    assertNoFalseNegatives(dir);
    assertTrue(
        FilterBuilder.build(
                real, dir, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE)
            .nothingRebuilt());
  }
}
