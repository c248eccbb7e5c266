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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
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
      scanned = answers(first);
    }
    assertTrue(Files.size(work.resolve(BlockIndexCache.FILE_NAME)) > 0, "kept at the first open");
    try (NodeIndex second = NodeIndex.open(dd, work)) {
      assertTrue(second.blockIndexFromCache());
      assertEquals(scanned, answers(second));
    }
  }

  @Test
  void theActiveChainKeptWithTheRecordsAnswersAsTheOneAScanComputes() throws IOException {
    Scanned s = scannedOnce(Archive.MAINNET_LDB);
    s.assertOpens(true, "the second open takes the cache");
  }

  @Test
  void aCacheWhoseActiveChainWasAlteredIsRefusedEvenWithItsCrcMadeRight() throws IOException {
    Scanned s = scannedOnce(Archive.REGTEST_B);
    byte[] good = Files.readAllBytes(s.cache());
    ByteBuffer le = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN);
    int rowsAt = 8 + 32 + 4 + le.getInt(8 + 32) * BlockIndexCache.RECORD_BYTES + 4;
    int m = le.getInt(rowsAt - 4);
    assertTrue(m > 2, "a chain of a few blocks");

    List<byte[]> altered = new ArrayList<>();
    // two heights' rows swapped
    byte[] swapped = good.clone();
    ByteBuffer.wrap(swapped)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(rowsAt + 4, le.getInt(rowsAt + 8))
        .putInt(rowsAt + 8, le.getInt(rowsAt + 4));
    altered.add(swapped);
    // a row beyond the records
    byte[] outside = good.clone();
    ByteBuffer.wrap(outside).order(ByteOrder.LITTLE_ENDIAN).putInt(rowsAt, 1 << 30);
    altered.add(outside);
    // the tip cut off: a chain one block short
    altered.add(withoutTip(good, rowsAt, m));
    // another tip work (its last byte)
    byte[] moreWork = good.clone();
    moreWork[good.length - 5] ^= 1;
    altered.add(moreWork);

    for (byte[] bytes : altered) {
      Files.write(s.cache(), withCrc(bytes));
      s.assertOpens(false, "an active chain not the records' is refused");
    }
    s.assertOpens(true, "written anew by the open that read around it");
  }

  @Test
  void aCacheOfVersion02IsRefusedAndReplaced() throws IOException {
    Scanned s = scannedOnce(Archive.REGTEST_B);
    byte[] bytes = Files.readAllBytes(s.cache());
    assertEquals("BBFBIX03", new String(bytes, 0, 8, StandardCharsets.US_ASCII));
    // as version 02 wrote it: the records alone, then the CRC
    int n = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(8 + 32);
    byte[] v02 = Arrays.copyOf(bytes, 8 + 32 + 4 + n * BlockIndexCache.RECORD_BYTES + 4);
    v02[7] = '2';
    Files.write(s.cache(), withCrc(v02));
    s.assertOpens(false, "a version 02 cache is not taken");
    s.assertOpens(true, "replaced after one scan");
  }

  /** A datadir, a work directory, and the {@link #answers} of the first open (a scan). */
  private record Scanned(Path dd, Path work, List<String> answers) {

    Path cache() {
      return work.resolve(BlockIndexCache.FILE_NAME);
    }

    /** Opens it again: from the cache or not, and answering as the first open. */
    void assertOpens(boolean fromCache, String why) throws IOException {
      try (NodeIndex idx = NodeIndex.open(dd, work)) {
        assertEquals(fromCache, idx.blockIndexFromCache(), why);
        assertEquals(answers, BlockIndexCacheTest.answers(idx));
      }
    }
  }

  /** {@code archive} extracted and opened once: it scans, and keeps the cache. */
  private Scanned scannedOnce(Archive archive) throws IOException {
    Path dd = Fixtures.extract(archive, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    try (NodeIndex first = NodeIndex.open(dd, work)) {
      assertFalse(first.blockIndexFromCache(), "nothing kept yet: the first open scans");
      return new Scanned(dd, work, answers(first));
    }
  }

  /** {@code bytes} without the chain's last row (its length one less). */
  private static byte[] withoutTip(byte[] bytes, int rowsAt, int m) {
    int tipAt = rowsAt + 4 * (m - 1);
    byte[] out = new byte[bytes.length - 4];
    System.arraycopy(bytes, 0, out, 0, tipAt);
    System.arraycopy(bytes, tipAt + 4, out, tipAt, bytes.length - tipAt - 4);
    ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putInt(rowsAt - 4, m - 1);
    return out;
  }

  /** {@code bytes} with their last 4 bytes the CRC32C of the others, as the cache writes it. */
  private static byte[] withCrc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(bytes.length - 4, (int) crc.getValue());
    return bytes;
  }

  /**
   * {@link #rendering} and the chain: tip, its work, and the active block at every height (and just
   * outside them).
   */
  private static List<String> answers(NodeIndex idx) {
    HexFormat hex = HexFormat.of();
    List<String> lines = new ArrayList<>(rendering(idx));
    lines.add("tip " + hex.formatHex(idx.tip().hash()) + " " + idx.tipHeight());
    lines.add("tipHash " + hex.formatHex(idx.tipHash()));
    lines.add("work " + idx.tipChainWork());
    for (int h = -1; h <= idx.tipHeight() + 1; h++) {
      lines.add(
          "at "
              + h
              + " "
              + idx.activeBlockAt(h).map(b -> hex.formatHex(b.hash()) + " " + b.confirmations()));
    }
    return lines;
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
