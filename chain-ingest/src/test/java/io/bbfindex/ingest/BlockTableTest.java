package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The block table kept in the work directory ({@link BlockTable}) over real Core data directories:
 * a second open reads it instead of decoding the LevelDB and answers exactly as the first; a node
 * whose block index changed, or a damaged table, is decoded again, never answered from the stale
 * table.
 */
class BlockTableTest {

  @TempDir Path tmp;

  @Test
  void theSecondOpenReadsTheTableAndAnswersExactlyAsTheFirst() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    Map<String, String> first;
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertFalse(index.blockTableUsed(), "no table yet: the LevelDB is decoded");
      first = blocks(index);
      assertExact(index, Archive.MAINNET_LDB);
    }
    assertTrue(Files.exists(work.resolve(BlockTable.FILE_NAME)), "the table is kept");
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertTrue(index.blockTableUsed(), "the unchanged index is read from the table");
      assertEquals(first, blocks(index));
      assertExact(index, Archive.MAINNET_LDB);
    }
  }

  @Test
  void aChangedNodeIndexIsDecodedAgainNotAnsweredFromTheStaleTable() throws IOException {
    // one node's datadir, then at the same path another node's (its block index changed)
    Path data = tmp.resolve("data");
    Path dd = Fixtures.extract(Archive.REGTEST_B, data);
    Path work = tmp.resolve("work");
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertExact(index, Archive.REGTEST_B);
    }
    NodeIndex.deleteTree(data);
    Path other = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("other"));
    Files.createDirectories(dd.getParent());
    Files.move(other, dd);
    Map<String, String> fresh;
    try (NodeIndex index = NodeIndex.open(dd, tmp.resolve("fresh-work"))) {
      fresh = blocks(index);
    }
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertFalse(index.blockTableUsed(), "another block index: the stale table is not read");
      assertEquals(fresh, blocks(index));
      assertExact(index, Archive.REGTEST_MULTIFILE);
    }
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertTrue(index.blockTableUsed(), "the table was made again for the new index");
      assertEquals(fresh, blocks(index));
      assertExact(index, Archive.REGTEST_MULTIFILE);
    }
  }

  @Test
  void aDamagedTableIsIgnoredAndMadeAgain() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LEGACY, tmp.resolve("data"));
    Path work = tmp.resolve("work");
    Map<String, String> first;
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      first = blocks(index);
    }
    Path table = work.resolve(BlockTable.FILE_NAME);
    // one bit of a header in the middle of the table flipped: its CRC no longer holds
    long size = Files.size(table);
    try (var ch =
        java.nio.channels.FileChannel.open(
            table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, size / 2);
      one.put(0, (byte) (one.get(0) ^ 1)).rewind();
      ch.write(one, size / 2);
    }
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertFalse(index.blockTableUsed(), "a damaged table is not read");
      assertEquals(first, blocks(index));
      assertExact(index, Archive.MAINNET_LEGACY);
    }
    try (NodeIndex index = NodeIndex.open(dd, work)) {
      assertTrue(index.blockTableUsed(), "and it was written again");
      assertEquals(first, blocks(index));
    }
  }

  /** Every ground-truth txid at its exact place, its block the one the truth names. */
  private static void assertExact(NodeIndex index, Archive a) throws IOException {
    for (TxRow r : Fixtures.txRows(a)) {
      TxLocation loc = index.findTx(r.txidInternal()).orElseThrow();
      assertEquals(r.file(), loc.file(), r.txidHex());
      assertEquals(r.pos(), loc.dataPos(), r.txidHex());
      assertEquals(r.txOffset(), loc.txOffset(), r.txidHex());
      assertEquals(r.pos(), loc.block().dataPos(), r.txidHex());
      assertArrayEquals(r.txidInternal(), loc.txid());
    }
  }

  /**
   * Every block: hash to height, status, nTx, place, header, active, confirmations; and the tip.
   */
  private static Map<String, String> blocks(NodeIndex index) {
    HexFormat hex = HexFormat.of();
    Map<String, String> out = new TreeMap<>();
    for (BlockInfo b : index.blocks()) {
      out.put(
          hex.formatHex(b.hash()),
          b.height()
              + " "
              + b.status()
              + " "
              + b.txCount()
              + " "
              + b.file()
              + " "
              + b.dataPos()
              + " "
              + b.undoPos()
              + " "
              + hex.formatHex(b.header())
              + " "
              + b.onActiveChain()
              + " "
              + b.confirmations());
    }
    out.put("tip", index.tipHeight() + " " + hex.formatHex(index.tipHash()));
    return out;
  }
}
