package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link NodeIndex} against every real Bitcoin Core data directory of the fixtures, checked against
 * the archives' ground truth ({@code *.txindex.tsv}) and against the blk bytes themselves.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeIndexFixtureTest {

  /** Seeded sample size of tx-byte verifications on the 150k-txid fixture (all rows elsewhere). */
  private static final long SEED = 0x5EED_0001L;

  @TempDir static Path tmp;

  private final Map<Archive, Path> datadirs = new EnumMap<>(Archive.class);
  private final Map<Archive, Map<String, String>> hashesBefore = new EnumMap<>(Archive.class);
  private final Map<Archive, NodeIndex> indexes = new EnumMap<>(Archive.class);
  private final Map<Archive, List<TxRow>> truth = new EnumMap<>(Archive.class);

  @BeforeAll
  void extractAndOpen() throws IOException {
    for (Archive a : Archive.values()) {
      Path dd = Fixtures.extract(a, tmp.resolve("data").resolve(a.name()));
      datadirs.put(a, dd);
      hashesBefore.put(a, Fixtures.hashTree(dd));
      indexes.put(a, NodeIndex.open(dd, tmp.resolve("work").resolve(a.name())));
      truth.put(a, Fixtures.txRows(a));
    }
  }

  @AfterAll
  void closeAll() throws IOException {
    for (NodeIndex idx : indexes.values()) {
      idx.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyGroundTruthTxidIsFoundAtItsExactPositionWithOneReadEach(Archive a) {
    NodeIndex idx = indexes.get(a);
    List<TxRow> rows = truth.get(a);
    long readsBefore = idx.leveldbReads();
    for (TxRow r : rows) {
      TxLocation loc =
          idx.findTx(r.txidInternal())
              .orElseThrow(() -> new AssertionError(a + ": not found " + r));
      assertEquals(r.file(), loc.file(), r.txidHex());
      assertEquals(r.pos(), loc.dataPos(), r.txidHex());
      assertEquals(r.txOffset(), loc.txOffset(), r.txidHex());
      assertEquals(r.absOffset(), loc.txFileOffset(), r.txidHex());
      assertEquals(r.file(), loc.block().file(), r.txidHex());
      assertEquals(r.pos(), loc.block().dataPos(), r.txidHex());
      assertArrayEquals(r.txidInternal(), loc.txid());
    }
    assertEquals(
        rows.size(), idx.leveldbReads() - readsBefore, "exactly one LevelDB get per findTx");
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void theBytesAtEveryLocationHashToTheTxid(Archive a) {
    NodeIndex idx = indexes.get(a);
    for (TxRow r : truth.get(a)) {
      TxLocation loc = idx.findTx(r.txidInternal()).orElseThrow();
      Transaction tx = idx.readTransaction(loc);
      assertEquals(r.txidHex(), tx.getTxId().toString());
    }
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyBlockRecordHashesToItsKeyAndItsDataHoldsThatHeader(Archive a) throws IOException {
    NodeIndex idx = indexes.get(a);
    assertFalse(idx.blocks().isEmpty());
    for (BlockInfo b : idx.blocks()) {
      assertArrayEquals(b.hash(), Sha256Hash.hashTwice(b.header()), b.toString());
      if (b.dataPos() >= 0) {
        assertArrayEquals(
            b.header(), idx.blockFileReader().readHeader(b.file(), b.dataPos()), b.toString());
      }
      assertEquals(b, idx.findBlock(b.hash()).orElseThrow());
    }
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void heightsFollowParentLinksAlongTheActiveChain(Archive a) {
    NodeIndex idx = indexes.get(a);
    int tip = idx.tipHeight();
    assertArrayEquals(idx.tipHash(), idx.activeBlockAt(tip).orElseThrow().hash());
    for (int h = 0; h <= tip; h++) {
      BlockInfo b = idx.activeBlockAt(h).orElseThrow();
      assertEquals(h, b.height());
      assertTrue(b.onActiveChain());
      assertEquals(tip - h + 1, b.confirmations());
      if (h > 0) {
        assertArrayEquals(
            idx.activeBlockAt(h - 1).orElseThrow().hash(), b.prevHash(), "height " + h);
      }
    }
    long active = idx.blocks().stream().filter(BlockInfo::onActiveChain).count();
    assertEquals(tip + 1, active);
    for (BlockInfo b : idx.blocks()) {
      if (!b.onActiveChain()) {
        assertEquals(-1, b.confirmations());
      }
    }
    // every tx row points into a block of the index
    Set<Long> positions = new HashSet<>();
    idx.blocks().forEach(b -> positions.add(((long) b.file() << 32) | b.dataPos()));
    for (TxRow r : truth.get(a)) {
      assertTrue(positions.contains(((long) r.file() << 32) | r.pos()), r.txidHex());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY"})
  void mainnetFixturesEndAt599AndHoldTheFirstPayment(Archive a) {
    NodeIndex idx = indexes.get(a);
    assertEquals(599, idx.tipHeight());
    // difficulty 1 throughout: chainwork = 600 * 0x100010001, as getblockheader reports
    assertEquals(java.math.BigInteger.valueOf(600L * 0x1_0001_0001L), idx.tipChainWork());
    assertEquals(
        "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        idx.activeBlockAt(0).orElseThrow().hashHex());
    TxLocation loc =
        idx.findTx(
                Fixtures.internal(
                    "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16"))
            .orElseThrow();
    assertEquals(170, loc.block().height());
    assertEquals(
        "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee", loc.block().hashHex());
    assertTrue(loc.block().onActiveChain());
    assertEquals(599 - 170 + 1, loc.block().confirmations());
    assertEquals(a == Archive.MAINNET_LEGACY, idx.legacyTxindex());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void genesisCoinbaseIsAnsweredFromTheBlockIndexWithoutARead(Archive a) {
    NodeIndex idx = indexes.get(a);
    byte[] txid =
        Fixtures.internal("4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b");
    long before = idx.leveldbReads();
    TxLocation loc = idx.findTx(txid).orElseThrow();
    assertEquals(before, idx.leveldbReads());
    assertEquals(0, loc.block().height());
    assertEquals(1, loc.txOffset());
    assertEquals(idx.activeBlockAt(0).orElseThrow(), loc.block());
    assertEquals(
        "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
        idx.readTransaction(loc).getTxId().toString());
    assertTrue(
        truth.get(a).stream().noneMatch(r -> Arrays.equals(r.txidInternal(), txid)),
        "Core does not index the genesis coinbase");
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void absentTxidsCostOneReadEachAndAreEmpty(Archive a) {
    NodeIndex idx = indexes.get(a);
    Random rnd = new Random(SEED);
    long before = idx.leveldbReads();
    for (int i = 0; i < 1000; i++) {
      byte[] txid = new byte[32];
      rnd.nextBytes(txid);
      assertEquals(Optional.empty(), idx.findTx(txid), "seed " + SEED);
    }
    assertEquals(1000, idx.leveldbReads() - before);
  }

  /**
   * A realistic query workload: real mainnet txids with their real blocks. Those whose block the
   * mainnet fixtures hold (heights 0-599) must be found in exactly that block; all others must be
   * absent, at one LevelDB read each.
   */
  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY"})
  void realMainnetTxidsAreFoundInTheirBlockOrAbsent(Archive a) throws IOException {
    NodeIndex idx = indexes.get(a);
    int found = 0;
    int absent = 0;
    for (Fixtures.RealTx t : Fixtures.realMainnetTxids()) {
      Optional<BlockInfo> block = idx.findBlock(t.blockHash());
      Optional<TxLocation> loc = idx.findTx(t.txid());
      if (block.isPresent()) {
        assertEquals(block.get(), loc.orElseThrow().block());
        found++;
      } else {
        assertEquals(Optional.empty(), loc);
        absent++;
      }
    }
    System.out.printf(
        "%s: real mainnet txids: %d found in their block, %d absent%n", a, found, absent);
    assertTrue(absent > 80_000);
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void forEachTxYieldsExactlyTheGroundTruth(Archive a) {
    NodeIndex idx = indexes.get(a);
    Map<ByteBuffer, TxRow> expected = new HashMap<>();
    for (TxRow r : truth.get(a)) {
      expected.put(ByteBuffer.wrap(r.txidInternal()), r);
    }
    long before = idx.leveldbReads();
    int[] count = {0};
    idx.forEachTx(
        (txid, file, pos, off) -> {
          TxRow r = expected.get(ByteBuffer.wrap(txid));
          assertNotNull(r, "unexpected txid");
          assertEquals(r.file(), file);
          assertEquals(r.pos(), pos);
          assertEquals(r.txOffset(), off);
          count[0]++;
        });
    assertEquals(expected.size(), count[0]);
    assertEquals(before, idx.leveldbReads(), "a scan is not counted as lookups");
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void txindexLocatorTipIsABlockOfTheActiveChain(Archive a) {
    NodeIndex idx = indexes.get(a);
    int h = idx.txindexTipHeight().orElseThrow();
    assertTrue(h >= 0 && h <= idx.tipHeight());
    BlockInfo b = idx.findBlock(idx.txindexTipHash().orElseThrow()).orElseThrow();
    assertTrue(b.onActiveChain());
    assertEquals(h, b.height());
    System.out.printf(
        "%s: tip %d, txindex 'B' tip %d, %d blocks, %d files%n",
        a, idx.tipHeight(), h, idx.blocks().size(), idx.blockFiles().size());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void blockFileRecordsDescribeTheFiles(Archive a) throws IOException {
    NodeIndex idx = indexes.get(a);
    assertFalse(idx.blockFiles().isEmpty());
    long blocksWithData = idx.blocks().stream().filter(b -> b.dataPos() >= 0).count();
    assertEquals(
        blocksWithData, idx.blockFiles().values().stream().mapToLong(BlockFileInfo::blocks).sum());
    for (BlockFileInfo f : idx.blockFiles().values()) {
      // every framed record Core counted in nSize is found by the scanner, which then stops at the
      // zero tail
      long[] end = {0};
      int[] n = {0};
      idx.blockFileReader()
          .scan(
              f.file(),
              (dataPos, size, header) -> {
                assertTrue(idx.findBlock(Sha256Hash.hashTwice(header)).isPresent());
                end[0] = dataPos + size;
                n[0]++;
                return true;
              });
      assertEquals(f.size(), end[0], "nSize of file " + f.file());
      assertEquals(f.blocks(), n[0], "nBlocks of file " + f.file());
    }
  }

  @Test
  void theDataDirectoryIsByteIdenticalAfterOpenReadAndClose() throws IOException {
    Archive a = Archive.MAINNET_LDB;
    Path dd = Fixtures.extract(a, tmp.resolve("identical"));
    Map<String, String> before = Fixtures.hashTree(dd);
    Path work = tmp.resolve("identical-work");
    try (NodeIndex idx = NodeIndex.open(dd, work)) {
      for (TxRow r : truth.get(a)) {
        idx.readTransaction(idx.findTx(r.txidInternal()).orElseThrow());
      }
      idx.forEachTx((txid, file, pos, off) -> {});
    }
    assertEquals(before, Fixtures.hashTree(dd));
    try (Stream<Path> left = Files.list(work)) {
      assertEquals(
          List.of(work.resolve("block-index.cache")),
          left.toList(),
          "close deletes the snapshot and keeps only the decoded block index for the next open");
    }
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void lastBlockFileAndFlags(Archive a) {
    NodeIndex idx = indexes.get(a);
    int highest =
        idx.blockFiles().keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
    assertEquals(highest, idx.lastBlockFile().orElseThrow());
    assertFalse(idx.reindexing());
    assertFalse(idx.prunedBlockFiles());
  }

  /** The app serves lookups from many threads: answers and the read counter must stay exact. */
  @Test
  void concurrentLookupsAgreeAndAreAllCounted() throws Exception {
    NodeIndex idx = indexes.get(Archive.REGTEST_MULTIFILE);
    List<TxRow> rows = truth.get(Archive.REGTEST_MULTIFILE);
    long before = idx.leveldbReads();
    int threads = 4;
    int perThread = 20_000;
    List<java.util.concurrent.Future<Integer>> done = new ArrayList<>();
    try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
      for (int t = 0; t < threads; t++) {
        long seed = SEED + t;
        done.add(
            pool.submit(
                () -> {
                  Random rnd = new Random(seed);
                  for (int i = 0; i < perThread; i++) {
                    TxRow r = rows.get(rnd.nextInt(rows.size()));
                    TxLocation loc = idx.findTx(r.txidInternal()).orElseThrow();
                    assertEquals(r.absOffset(), loc.txFileOffset(), "seed " + seed);
                    if (i % 50 == 0) {
                      assertEquals(r.txidHex(), idx.readTransaction(loc).getTxId().toString());
                    }
                  }
                  return perThread;
                }));
      }
      for (var f : done) {
        f.get();
      }
    }
    assertEquals((long) threads * perThread, idx.leveldbReads() - before);
  }

  @Test
  void aClosedIndexRefusesLookupsAndClosesOnce() throws IOException {
    Path dd = datadirs.get(Archive.MAINNET_LDB);
    NodeIndex idx = NodeIndex.open(dd, tmp.resolve("closing"));
    TxRow r = truth.get(Archive.MAINNET_LDB).get(0);
    TxLocation loc = idx.findTx(r.txidInternal()).orElseThrow();
    idx.close();
    idx.close();
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> idx.findTx(r.txidInternal()));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> idx.readTransaction(loc));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> idx.forEachTx((t, f, p, o) -> {}));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class,
        () -> indexes.get(Archive.MAINNET_LDB).findTx(new byte[31]));
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void sharedFixturesAreUnchangedByTheSuite(Archive a) throws IOException {
    assertEquals(hashesBefore.get(a), Fixtures.hashTree(datadirs.get(a)));
  }
}
