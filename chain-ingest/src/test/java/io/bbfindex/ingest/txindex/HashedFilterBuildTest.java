package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.BuildReport;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.HashedFixtures;
import io.bbfindex.ingest.testing.HashedFixtures.Archive;
import io.bbfindex.ingest.testing.HashedFixtures.TruthRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Filters built from the block data of the Core 31.99 fixtures (hashed and mixed txindexes hold no
 * or only some txids): no false negative for any truth row (stale blocks included), one filter per
 * blk file, incremental, the datadir untouched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HashedFilterBuildTest {

  @TempDir static Path tmp;

  private final Map<Archive, Path> datadirs = new EnumMap<>(Archive.class);
  private final Map<Archive, Map<String, String>> hashesBefore = new EnumMap<>(Archive.class);
  private final Map<Archive, FilterStore> stores = new EnumMap<>(Archive.class);
  private final Map<Archive, BuildReport> reports = new EnumMap<>(Archive.class);

  @BeforeAll
  void buildAll() throws IOException {
    for (Archive a : Archive.values()) {
      Path dd = HashedFixtures.extract(a, tmp.resolve("data").resolve(a.name()));
      datadirs.put(a, dd);
      hashesBefore.put(a, Fixtures.hashTree(dd));
      try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work").resolve(a.name()))) {
        reports.put(
            a,
            FilterBuilder.build(
                idx,
                store(a),
                BuildOptions.defaults().withFileFilters(true).withParallelism(2),
                ProgressListener.NONE));
      }
      stores.put(a, FilterStore.open(store(a)));
    }
  }

  private static Path store(Archive a) {
    return tmp.resolve("store").resolve(a.name());
  }

  @AfterAll
  void closeAll() {
    stores.values().forEach(FilterStore::close);
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyTruthRowPassesTheSummaryAndItsFilesFilter(Archive a) throws IOException {
    FilterStore store = stores.get(a);
    List<TruthRow> rows = HashedFixtures.rows(a);
    for (TruthRow r : rows) {
      assertTrue(store.mightContainTx(r.txidInternal(), 0), "summary misses " + r);
      BlockedBloomFilter perFile =
          store
              .fileFilter(r.file())
              .orElseThrow(() -> new AssertionError("no filter for blk" + r.file() + " of " + r));
      assertTrue(
          perFile.mightContain(r.txidInternal(), 0), "blk" + r.file() + " filter misses " + r);
    }
    // every transaction of every block in the blk files, the genesis coinbase included
    assertEquals(
        rows.size(), store.manifest().txKeys(), "one key per transaction of the blk files");
    long files = rows.stream().mapToInt(TruthRow::file).distinct().count();
    assertEquals(files, store.manifest().files().size());
    assertEquals(rows.size(), reports.get(a).records());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void theDataDirectoryIsByteIdenticalAfterIngest(Archive a) throws IOException {
    assertEquals(hashesBefore.get(a), Fixtures.hashTree(datadirs.get(a)));
  }

  @Test
  void aSecondBuildOfAnUnchangedNodeRebuildsNothing() throws IOException {
    Archive a = Archive.HASHED_MULTIFILE;
    try (NodeIndex idx = NodeIndex.open(datadirs.get(a), tmp.resolve("work2"))) {
      BuildReport again =
          FilterBuilder.build(
              idx,
              store(a),
              BuildOptions.defaults().withFileFilters(true).withParallelism(2),
              ProgressListener.NONE);
      assertTrue(again.nothingRebuilt(), again.describe());
    }
  }

  @Test
  void onlyTheSelectedBlockFilesAreReadTheOthersAreCounted() throws IOException {
    Archive a = Archive.HASHED_MULTIFILE;
    try (NodeIndex idx = NodeIndex.open(datadirs.get(a), tmp.resolve("work3"))) {
      BlockDataTxSource source =
          new BlockDataTxSource(idx.blocks(), idx.blockFileReader(), idx.blocksXorKey(), 2);
      Map<Integer, Long> expectedCounts = new TreeMap<>();
      for (BlockInfo b : idx.blocks()) {
        if (BlockStatus.hasData(b.status())) {
          expectedCounts.merge(b.file(), (long) b.txCount(), Long::sum);
        }
      }
      Map<Integer, Long> skipped = new HashMap<>();
      List<String> seen = new ArrayList<>();
      TreeSet<Integer> seenFiles = new TreeSet<>();
      class Selective implements io.bbfindex.ingest.records.TxRecordConsumer, BlockFileSelection {
        @Override
        public void accept(byte[] txid, int file, long dataPos, long txOffset) {
          seenFiles.add(file);
          seen.add(
              io.bbfindex.ingest.encoding.HashKeys.toDisplayHex(txid)
                  + " "
                  + file
                  + " "
                  + dataPos
                  + " "
                  + txOffset);
        }

        @Override
        public boolean wantsTxids(int file) {
          return file == 40;
        }

        @Override
        public void skipFile(int file, long txCount) {
          skipped.put(file, txCount);
        }
      }
      source.forEachTx(0, 256, new Selective());
      assertEquals(java.util.Set.of(40), seenFiles);
      List<String> truth40 =
          HashedFixtures.rows(a).stream()
              .filter(r -> r.file() == 40)
              .map(r -> r.txidHex() + " " + r.file() + " " + r.pos() + " " + r.txOffset())
              .sorted()
              .toList();
      assertEquals(
          truth40, seen.stream().sorted().toList(), "exact positions of every tx of blk00040");
      expectedCounts.remove(40);
      assertEquals(expectedCounts, skipped);
    }
  }

  @Test
  void aDamagedFileFilterIsRebuiltAloneFromItsBlockFile() throws IOException {
    Archive a = Archive.HASHED_MULTIFILE;
    Path copy = tmp.resolve("store-copy");
    Files.createDirectories(copy);
    try (var s = Files.list(store(a))) {
      for (Path p : s.toList()) {
        Files.copy(p, copy.resolve(p.getFileName()));
      }
    }
    String victim = FilterBuilder.fileFilterName(7);
    Files.write(copy.resolve(victim), new byte[] {1, 2, 3});
    try (NodeIndex idx = NodeIndex.open(datadirs.get(a), tmp.resolve("work4"))) {
      BuildReport r =
          FilterBuilder.build(
              idx,
              copy,
              BuildOptions.defaults().withFileFilters(true).withParallelism(2),
              ProgressListener.NONE);
      assertEquals(List.of(victim), r.rebuilt(), r.describe());
    }
    try (FilterStore s = FilterStore.open(copy)) {
      for (TruthRow row : HashedFixtures.rows(a)) {
        if (row.file() == 7) {
          assertTrue(
              s.fileFilter(7).orElseThrow().mightContain(row.txidInternal(), 0), row.toString());
        }
      }
    }
  }

  @Test
  void aChangedBlockFileIsTheOnlyOneReadAgain() throws IOException {
    // a copy of the node and a store built from it; then blk00012's 'f' record changes (as when
    // Core appends
    // to it) and blk00020.dat disappears: the rebuild must read blk00012.dat only
    Archive a = Archive.HASHED_MULTIFILE;
    Path dd = HashedFixtures.extract(a, tmp.resolve("grown"));
    Path copy = tmp.resolve("store-grown");
    io.bbfindex.ingest.BlockFileInfo f12;
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work5"))) {
      f12 = idx.blockFiles().get(12);
      FilterBuilder.build(
          idx,
          copy,
          BuildOptions.defaults().withFileFilters(true).withParallelism(2),
          ProgressListener.NONE);
    }
    java.io.ByteArrayOutputStream v = new java.io.ByteArrayOutputStream();
    for (long x :
        new long[] {
          f12.blocks(),
          f12.size() + 1,
          f12.undoSize(),
          f12.heightFirst(),
          f12.heightLast(),
          f12.timeFirst(),
          f12.timeLast()
        }) {
      v.writeBytes(io.bbfindex.ingest.encoding.CoreVarInt.encode(x));
    }
    io.bbfindex.ingest.testing.CoreLevelDbWriter.putAll(
        dd.resolve("blocks/index"),
        Map.of(io.bbfindex.ingest.records.DbKeys.fileKey(12), v.toByteArray()));
    Files.delete(dd.resolve("blocks/blk00020.dat"));
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work6"))) {
      BuildReport r =
          FilterBuilder.build(
              idx,
              copy,
              BuildOptions.defaults().withFileFilters(true).withParallelism(2),
              ProgressListener.NONE);
      assertEquals(
          List.of(FilterBuilder.fileFilterName(12), FilterBuilder.SUMMARY_NAME),
          r.rebuilt(),
          r.describe());
      assertEquals("updated", r.summaryAction(), r.describe());
    }
    try (FilterStore s = FilterStore.open(copy)) {
      for (TruthRow row : HashedFixtures.rows(a)) {
        assertTrue(s.mightContainTx(row.txidInternal(), 0), row.toString());
      }
    }
  }
}
