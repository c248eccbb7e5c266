package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.io.FilterKind;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.store.FilterInfo;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Filters built from every real fixture: no false negative for any ground-truth txid or block hash,
 * the false-positive rate on 87,308 real mainnet txids (and their block hashes) within the model's
 * binomial bound, and the fixture's data directory untouched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FilterBuildFixtureTest {

  /** One-sided z of the binomial bound: P(measured above it | model true) is about 3e-6. */
  private static final double Z = 4.5;

  @TempDir static Path tmp;

  private final Map<Archive, Path> datadirs = new EnumMap<>(Archive.class);
  private final Map<Archive, Map<String, String>> hashesBefore = new EnumMap<>(Archive.class);
  private final Map<Archive, Map<String, String>> hashesAfter = new EnumMap<>(Archive.class);
  private final Map<Archive, FilterStore> stores = new EnumMap<>(Archive.class);
  private final Map<Archive, BuildReport> reports = new EnumMap<>(Archive.class);
  private final Map<Archive, List<BlockInfo>> blocksWithData = new EnumMap<>(Archive.class);

  /** Real mainnet txids / block hashes (internal order) none of the fixtures holds. */
  private final List<byte[]> foreignTxids = new ArrayList<>();

  private final List<byte[]> foreignBlocks = new ArrayList<>();

  @BeforeAll
  void buildAll() throws IOException {
    Set<ByteBuffer> fixtureTxids = new HashSet<>();
    Set<ByteBuffer> fixtureBlocks = new HashSet<>();
    for (Archive a : Archive.values()) {
      Path dd = Fixtures.extract(a, tmp.resolve("data").resolve(a.name()));
      datadirs.put(a, dd);
      hashesBefore.put(a, Fixtures.hashTree(dd));
      try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work").resolve(a.name()))) {
        reports.put(
            a,
            FilterBuilder.build(
                idx,
                tmp.resolve("store").resolve(a.name()),
                BuildOptions.defaults().withFileFilters(true),
                ProgressListener.NONE));
        blocksWithData.put(
            a, idx.blocks().stream().filter(b -> BlockStatus.hasData(b.status())).toList());
        idx.blocks().forEach(b -> fixtureBlocks.add(ByteBuffer.wrap(b.hash())));
        idx.activeBlockAt(0).ifPresent(g -> fixtureTxids.add(ByteBuffer.wrap(merkleRoot(g))));
      }
      hashesAfter.put(a, Fixtures.hashTree(dd));
      stores.put(a, FilterStore.open(tmp.resolve("store").resolve(a.name())));
      Fixtures.txRows(a).forEach(r -> fixtureTxids.add(ByteBuffer.wrap(r.txidInternal())));
    }
    Set<ByteBuffer> seenBlocks = new HashSet<>();
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(
                    Files.newInputStream(Fixtures.dir().resolve("mainnet-real-txids.tsv.gz"))),
                StandardCharsets.US_ASCII))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("txid")) {
          continue;
        }
        String[] f = line.split("\t");
        byte[] txid = Fixtures.internal(f[0]);
        if (!fixtureTxids.contains(ByteBuffer.wrap(txid))) {
          foreignTxids.add(txid);
        }
        byte[] block = Fixtures.internal(f[1]);
        if (!fixtureBlocks.contains(ByteBuffer.wrap(block))
            && seenBlocks.add(ByteBuffer.wrap(block))) {
          foreignBlocks.add(block);
        }
      }
    }
  }

  @AfterAll
  void closeAll() {
    stores.values().forEach(FilterStore::close);
  }

  private static byte[] merkleRoot(BlockInfo b) {
    return java.util.Arrays.copyOfRange(b.header(), 36, 68);
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyGroundTruthTxidPassesTheSummaryAndItsFilesFilter(Archive a) throws IOException {
    FilterStore store = stores.get(a);
    List<TxRow> rows = Fixtures.txRows(a);
    byte[] keys = new byte[rows.size() * 32];
    for (int i = 0; i < rows.size(); i++) {
      TxRow r = rows.get(i);
      System.arraycopy(r.txidInternal(), 0, keys, i * 32, 32);
      assertTrue(store.mightContainTx(r.txidInternal(), 0), "summary misses " + r.txidHex());
      BlockedBloomFilter perFile =
          store
              .fileFilter(r.file())
              .orElseThrow(
                  () -> new AssertionError("no filter for blk" + r.file() + " of " + r.txidHex()));
      assertTrue(
          perFile.mightContain(r.txidInternal(), 0),
          "blk" + r.file() + " filter misses " + r.txidHex());
    }
    long[] maybe = new long[MembershipFilter.bitmapWords(rows.size())];
    assertEquals(
        rows.size(),
        store.mightContainTxBatch(keys, rows.size(), maybe),
        "batch: every row a maybe");
    for (int i = 0; i < rows.size(); i++) {
      assertTrue((maybe[i >>> 6] >>> i & 1) == 1, "batch probe misses " + rows.get(i).txidHex());
    }
    assertEquals(
        rows.size(), store.manifest().txKeys(), "manifest per-file counts = ground-truth rows");
    assertEquals(
        rows.size() + 1,
        store.manifest().summary().keys(),
        "summary = every row + the genesis coinbase");
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyBlockHashAndTheGenesisCoinbasePass(Archive a) {
    FilterStore store = stores.get(a);
    for (BlockInfo b : blocksWithData.get(a)) {
      assertTrue(store.mightContainBlock(b.hash(), 0), "block filter misses " + b.hashHex());
    }
    BlockInfo genesis =
        blocksWithData.get(a).stream().filter(b -> b.height() == 0).findFirst().orElseThrow();
    assertTrue(
        store.mightContainTx(merkleRoot(genesis), 0),
        "the genesis coinbase (answered by findTx) must pass");
    assertEquals(blocksWithData.get(a).size(), store.manifest().blocks().keys());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void theDataDirectoryIsByteIdenticalAfterIngest(Archive a) {
    assertEquals(hashesBefore.get(a), hashesAfter.get(a));
    assertTrue(
        hashesBefore.get(a).size() > 5, "hashed the whole tree: " + hashesBefore.get(a).keySet());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void aFreshBuildRebuildsEverythingInOneScanAndTheManifestDescribesTheNode(Archive a) {
    BuildReport r = reports.get(a);
    FilterStore s = stores.get(a);
    assertEquals(1, r.scans());
    assertEquals("rebuilt", r.summaryAction());
    assertEquals(s.manifest().files().size() + 2, r.rebuilt().size(), r.describe());
    assertTrue(r.kept().isEmpty());
    assertEquals(datadirs.get(a).toAbsolutePath().normalize().toString(), s.manifest().datadir());
    assertEquals(s.filters().size(), s.manifest().files().size() + 2);
    assertEquals(0.01, s.manifest().targetFpr());
  }

  /**
   * Issue 28 point 6: the store's files hold its secret salt (the manifest, each filter's header),
   * so only their owner may read and write them, and the store's directory is not open to others.
   * Before the fix the manifest was readable by everyone.
   */
  @Test
  void theStoresFilesAreTheOwnersOnlyAndItsDirectoryIsClosedToOthers() throws IOException {
    Path store = tmp.resolve("store").resolve(Archive.values()[0].name());
    Set<PosixFilePermission> dir = Files.getPosixFilePermissions(store);
    assertTrue(
        dir.stream().noneMatch(p -> p.name().startsWith("OTHERS")), "directory " + dir.toString());
    Set<PosixFilePermission> ownerOnly =
        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    List<Path> written;
    try (var files = Files.list(store)) {
      written =
          files
              .filter(
                  f ->
                      f.getFileName().toString().endsWith(".bbf")
                          || f.getFileName().toString().endsWith(".txt"))
              .toList();
    }
    assertTrue(written.stream().anyMatch(f -> f.endsWith("bbf-manifest.txt")), written.toString());
    for (Path f : written) {
      assertEquals(ownerOnly, Files.getPosixFilePermissions(f), f.toString());
    }
  }

  @Test
  void filtersReportTheirGeometryKeysAndAFillRatioThatMatchesTheirLoad() {
    FilterStore s = stores.get(Archive.REGTEST_MULTIFILE);
    List<FilterInfo> infos = s.filters();
    assertEquals(
        List.of("tx-summary.bbf", "block-hashes.bbf", "tx-blk00000.bbf", "tx-blk00001.bbf"),
        infos.stream().map(FilterInfo::name).toList());
    assertEquals(
        List.of(
            FilterKind.TX_SUMMARY,
            FilterKind.BLOCK_HASHES,
            FilterKind.TX_BLOCK_FILE,
            FilterKind.TX_BLOCK_FILE),
        infos.stream().map(FilterInfo::kind).toList());
    assertEquals(List.of(-1, -1, 0, 1), infos.stream().map(FilterInfo::blockFile).toList());
    assertEquals(150_401, infos.get(2).keys() + infos.get(3).keys());
    for (FilterInfo i : infos) {
      BlockedBloomFilter f =
          i.kind().equals(FilterKind.TX_BLOCK_FILE)
              ? s.fileFilter(i.blockFile()).orElseThrow()
              : i.kind().equals(FilterKind.TX_SUMMARY) ? s.summaryFilter() : null;
      if (f != null) {
        assertEquals(f.bitSize(), i.bits());
        assertEquals(f.geometry().k(), i.k());
        assertEquals(f.geometry().wordBits(), i.wordBits());
      }
      // a key sets one bit per word of one group: expected fill 1 - (1 - 1/bitsPerWordTotal)^n per
      // word
      double words = (double) i.bits() / i.wordBits();
      double perWordKeys = i.keys() / (words / i.k());
      double expectedFill = 1 - Math.pow(1 - 1.0 / i.wordBits(), perWordKeys);
      assertEquals(expectedFill, i.fillRatio(), 0.05 * expectedFill + 0.002, i.toString());
      assertTrue(i.modelledFpr() > 0 && i.modelledFpr() <= 0.01, i.toString());
    }
  }

  @Test
  void aClosedStoreRefusesLookupsAndASecondBuildWaitsForTheLock() throws IOException {
    Path dir = tmp.resolve("store").resolve(Archive.MAINNET_LDB.name());
    FilterStore s = FilterStore.open(dir);
    byte[] key = new byte[32];
    s.mightContainTx(key, 0);
    s.close();
    s.close();
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> s.mightContainTx(key, 0));

    try (java.nio.channels.FileChannel ch =
            java.nio.channels.FileChannel.open(
                dir.resolve(".build.lock"), java.nio.file.StandardOpenOption.WRITE);
        java.nio.channels.FileLock held = ch.lock();
        NodeIndex idx =
            NodeIndex.open(datadirs.get(Archive.MAINNET_LDB), tmp.resolve("work-lock"))) {
      FilterBuildException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              FilterBuildException.class,
              () ->
                  FilterBuilder.build(
                      idx,
                      dir,
                      BuildOptions.defaults().withFileFilters(true),
                      ProgressListener.NONE));
      assertTrue(e.getMessage().contains("another build"), e.getMessage());
    }
  }

  /**
   * Real mainnet txids absent from every fixture, probed against every filter built: the measured
   * FPR must stay under the model's binomial bound p + z sqrt(p (1 - p) / N).
   */
  @Test
  void falsePositiveRateOnRealMainnetTxidsStaysWithinTheModelsBound() {
    assertTrue(foreignTxids.size() > 80_000, "real txids not in a fixture: " + foreignTxids.size());
    StringBuilder table =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%n%-44s %9s %10s %3s %3s %7s %9s %9s %9s%n",
                "filter",
                "n",
                "bits",
                "k",
                "lw",
                "probes",
                "measured",
                "model",
                "bound"));
    List<String> failures = new ArrayList<>();
    for (Archive a : Archive.values()) {
      FilterStore s = stores.get(a);
      for (FilterInfo info : s.filters()) {
        boolean blocks = info.kind().equals(FilterKind.BLOCK_HASHES);
        // few distinct real block hashes exist in the workload: probe the block filter with them
        // and
        // with the txids (uniform 32-byte keys, as the filter only reads bytes 0..23)
        List<byte[]> probes = foreignTxids;
        if (blocks) {
          probes = new ArrayList<>(foreignBlocks);
          probes.addAll(foreignTxids);
        }
        BlockedBloomFilter f =
            switch (info.kind()) {
              case FilterKind.TX_SUMMARY -> s.summaryFilter();
              case FilterKind.TX_BLOCK_FILE -> s.fileFilter(info.blockFile()).orElseThrow();
              default -> null;
            };
        long hits = 0;
        for (byte[] p : probes) {
          if (f != null ? f.mightContain(p, 0) : s.mightContainBlock(p, 0)) {
            hits++;
          }
        }
        double n = probes.size();
        double measured = hits / n;
        double model = info.modelledFpr();
        double bound = model + Z * Math.sqrt(model * (1 - model) / n) + 1 / n;
        table.append(
            String.format(
                Locale.ROOT,
                "%-44s %9d %10d %3d %3d %7d %9.5f %9.5f %9.5f%n",
                a.name() + "/" + info.name(),
                info.keys(),
                info.bits(),
                info.k(),
                info.wordBits(),
                probes.size(),
                measured,
                model,
                bound));
        if (measured > bound) {
          failures.add(a + "/" + info.name() + ": " + measured + " > " + bound);
        }
        assertTrue(model <= 0.01 + 1e-12, "every filter is sized for 1 %: " + info);
      }
    }
    System.out.println(table);
    assertTrue(failures.isEmpty(), "FPR above the model's bound: " + failures + table);
  }
}
