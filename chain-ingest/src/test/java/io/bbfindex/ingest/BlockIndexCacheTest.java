package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskBlockIndex;
import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The block index kept in the work directory between opens ({@link BlockIndexCache}): taken only
 * while the node's block index holds what it held, and then giving exactly what a scan gives.
 */
class BlockIndexCacheTest {

  @TempDir Path tmp;

  @Test
  void aSecondOpenOfAnUnchangedNodeTakesTheCacheAndAnswersAsTheScanDid() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    List<String> scanned;
    try (NodeIndex first = NodeIndex.open(dd, work)) {
      assertFalse(first.blockIndexFromCache(), "nothing kept yet: the first open scans");
      scanned = rendering(first);
    }
    assertTrue(Files.size(work.resolve(BlockIndexCache.FILE_NAME)) > 0, "kept at the first open");
    try (NodeIndex second = NodeIndex.open(dd, work)) {
      assertTrue(second.blockIndexFromCache());
      assertEquals(scanned, rendering(second));
    }
  }

  @Test
  void anotherNodesCacheIsNotTaken() throws IOException {
    Path work = tmp.resolve("work");
    Path a = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("a"));
    Path b = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("b"));
    List<String> bAlone;
    try (NodeIndex alone = NodeIndex.open(b, tmp.resolve("work-b"))) {
      bAlone = rendering(alone);
    }
    NodeIndex.open(a, work).close();
    try (NodeIndex idx = NodeIndex.open(b, work)) {
      assertFalse(idx.blockIndexFromCache(), "a's block index is not b's");
      assertEquals(bAlone, rendering(idx));
    }
    try (NodeIndex idx = NodeIndex.open(b, work)) {
      assertTrue(idx.blockIndexFromCache(), "b's is kept now");
      assertEquals(bAlone, rendering(idx));
    }
  }

  @Test
  void aBlockRecordTheNodeRewroteIsReadAgainNotTakenFromTheCache() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    BlockInfo tip;
    try (NodeIndex first = NodeIndex.open(dd, work)) {
      tip = first.tip();
    }
    // as the node would after learning more of the tip block: its record rewritten (here nTx)
    int txCount = tip.txCount() + 1000;
    CoreLevelDbWriter.putAll(
        dd.resolve("blocks/index"), Map.of(DbKeys.blockKey(tip.hash()), blockRecord(tip, txCount)));
    try (NodeIndex again = NodeIndex.open(dd, work)) {
      assertFalse(again.blockIndexFromCache(), "the block index changed: read it again");
      assertEquals(txCount, again.tip().txCount(), "the record as the node has it now");
    }
    try (NodeIndex third = NodeIndex.open(dd, work)) {
      assertTrue(third.blockIndexFromCache());
      assertEquals(txCount, third.tip().txCount(), "the cache kept the new record");
    }
  }

  @Test
  void aDamagedOrTruncatedCacheIsReadAroundNeverTrusted() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    List<String> scanned;
    try (NodeIndex first = NodeIndex.open(dd, work)) {
      scanned = rendering(first);
    }
    Path cache = work.resolve(BlockIndexCache.FILE_NAME);
    long size = Files.size(cache);
    // one bit of one record's height: without the CRC, a block at the wrong height
    flipBit(cache, size / 2);
    try (NodeIndex idx = NodeIndex.open(dd, work)) {
      assertFalse(idx.blockIndexFromCache(), "a cache failing its CRC is not taken");
      assertEquals(scanned, rendering(idx));
    }
    try (FileChannel ch = FileChannel.open(cache, StandardOpenOption.WRITE)) {
      ch.truncate(size - BlockIndexCache.RECORD_BYTES);
    }
    try (NodeIndex idx = NodeIndex.open(dd, work)) {
      assertFalse(idx.blockIndexFromCache(), "a short cache is not taken");
      assertEquals(scanned, rendering(idx));
    }
    Files.write(cache, new byte[0]);
    try (NodeIndex idx = NodeIndex.open(dd, work)) {
      assertFalse(idx.blockIndexFromCache(), "an empty cache is not taken");
      assertEquals(scanned, rendering(idx));
    }
    try (NodeIndex idx = NodeIndex.open(dd, work)) {
      assertTrue(idx.blockIndexFromCache(), "each open that read around it wrote it anew");
    }
  }

  @Test
  void twoStatesOfOneDatabaseHaveDifferentDigestsAndOneStateOneDigest() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    byte[] before = digestOf(dd, tmp.resolve("w1"));
    assertEquals(
        HexFormat.of().formatHex(before),
        HexFormat.of().formatHex(digestOf(dd, tmp.resolve("w2"))));
    CoreLevelDbWriter.putAll(
        dd.resolve("blocks/index"), Map.of(new byte[] {'z', 1}, new byte[] {2}));
    assertNotEquals(
        HexFormat.of().formatHex(before),
        HexFormat.of().formatHex(digestOf(dd, tmp.resolve("w3"))));
  }

  @Test
  void theCacheFollowsARunningNodesBlockIndexWhileTheIndexIsOpen() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    int txCount;
    try (NodeIndex live = NodeIndex.open(dd, work, true)) {
      BlockIndexCacheRefresher refresher = live.cacheRefresher();
      assertNotNull(refresher, "an index of a running node keeps its cache in step");
      refresher.tick();
      assertEquals(0, refresher.refreshes(), "the node's block index did not change");
      BlockInfo tip = live.tip();
      txCount = tip.txCount() + 7;
      // the node flushes: its block index now holds another record for the tip
      CoreLevelDbWriter.putAll(
          dd.resolve("blocks/index"),
          Map.of(DbKeys.blockKey(tip.hash()), blockRecord(tip, txCount)));
      refresher.tick();
      assertEquals(1, refresher.refreshes(), "the change was seen and the cache written");
      refresher.tick();
      assertEquals(1, refresher.refreshes(), "and only once");
      assertEquals(tip.txCount(), live.tip().txCount(), "the open index keeps its own snapshot");
    }
    try (NodeIndex restarted = NodeIndex.open(dd, work, true)) {
      assertTrue(restarted.blockIndexFromCache(), "the restart takes the refreshed cache");
      assertEquals(txCount, restarted.tip().txCount());
    }
    try (NodeIndex stopped = NodeIndex.open(dd, tmp.resolve("work-stopped"))) {
      assertNull(stopped.cacheRefresher(), "a stopped node's block index does not change");
    }
  }

  @Test
  void anOpenRemovesPartialCachesOfKilledWritersButNotOneBeingWritten() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    Path work = Files.createDirectories(tmp.resolve("work"));
    Path killed =
        Files.write(work.resolve("." + BlockIndexCache.FILE_NAME + ".1234.tmp"), new byte[10]);
    Files.setLastModifiedTime(
        killed,
        java.nio.file.attribute.FileTime.fromMillis(
            System.currentTimeMillis() - BlockIndexCache.LEFTOVER_AGE.toMillis() - 60_000));
    Path writing =
        Files.write(work.resolve("." + BlockIndexCache.FILE_NAME + ".5678.tmp"), new byte[10]);
    NodeIndex.open(dd, work).close();
    assertFalse(Files.exists(killed), "a killed writer's partial cache is removed");
    assertTrue(Files.exists(writing), "a recent one may be another process's write in progress");
  }

  private static byte[] digestOf(Path dd, Path work) throws IOException {
    Files.createDirectories(work);
    try (var s =
        io.bbfindex.ingest.leveldb.LevelDbSnapshot.open(
            dd.resolve("blocks/index"), work.resolve("snap"))) {
      return s.contentDigest();
    }
  }

  /** Every block as the index answers it, one line each, in the index's order. */
  private static List<String> rendering(NodeIndex idx) {
    HexFormat hex = HexFormat.of();
    return idx.blocks().stream()
        .map(
            b ->
                String.join(
                    " ",
                    hex.formatHex(b.hash()),
                    Integer.toString(b.height()),
                    Integer.toString(b.status()),
                    Integer.toString(b.txCount()),
                    Integer.toString(b.file()),
                    Long.toString(b.dataPos()),
                    Long.toString(b.undoPos()),
                    hex.formatHex(b.header()),
                    Boolean.toString(b.onActiveChain()),
                    Integer.toString(b.confirmations())))
        .toList();
  }

  /** Core's CDiskBlockIndex value of {@code b} with {@code txCount} transactions. */
  private static byte[] blockRecord(BlockInfo b, int txCount) {
    return CoreLevelDbWriter.blockIndexValue(
        new DiskBlockIndex(
            b.hash(),
            210100, // the client version Core writes as the dummy
            b.height(),
            b.status(),
            txCount,
            b.file(),
            b.dataPos(),
            b.undoPos(),
            b.header()));
  }

  private static void flipBit(Path file, long at) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) at] ^= 1;
    Files.write(file, bytes);
  }
}
