package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import io.bbfindex.ingest.testing.HashedFixtures;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.bitcoinj.core.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The txids {@link BlockDataTxSource} computes from blk files ({@link TxidHasher}) are exactly the
 * fixtures' truth: on the Core 31.99 archives every truth row (txid, file, position, offset; segwit
 * and legacy serializations, stale blocks, XORed files), and on the legacy archives every {@code
 * 't'} row Core wrote (150,401 on the multifile one) plus the genesis coinbase.
 */
class HashedBlockDataTxidsTest {

  @TempDir Path tmp;

  private static String row(byte[] txid, int file, long pos, long txOffset) {
    return HashKeys.toDisplayHex(txid) + " " + file + " " + pos + " " + txOffset;
  }

  private static Set<String> fromBlockData(NodeIndex idx) {
    Set<String> out = new HashSet<>();
    new BlockDataTxSource(idx.blocks(), idx.blockFileReader(), idx.blocksXorKey(), 2)
        .forEachTx(0, 256, (txid, file, pos, off) -> out.add(row(txid, file, pos, off)));
    return out;
  }

  @ParameterizedTest
  @EnumSource(HashedFixtures.Archive.class)
  void everyTruthRowAndNothingElse(HashedFixtures.Archive a) throws IOException {
    Path dd = HashedFixtures.extract(a, tmp.resolve("data"));
    Set<String> truth = new HashSet<>();
    HashedFixtures.rows(a)
        .forEach(r -> truth.add(row(r.txidInternal(), r.file(), r.pos(), r.txOffset())));
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      assertEquals(truth, fromBlockData(idx));
    }
  }

  @Test
  void aSecondPassOfTheSameSourceGivesTheSameRows() throws IOException {
    // its file buffers and txid arrays are reused, and its first pass hashed the buffers in place
    // (TxidHasher.hashOverwritingWitness): the second must read the files again, not reuse bytes
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.HASHED_MULTIFILE, tmp.resolve("data"));
    Set<String> truth = new HashSet<>();
    HashedFixtures.rows(HashedFixtures.Archive.HASHED_MULTIFILE)
        .forEach(r -> truth.add(row(r.txidInternal(), r.file(), r.pos(), r.txOffset())));
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      BlockDataTxSource source =
          new BlockDataTxSource(idx.blocks(), idx.blockFileReader(), idx.blocksXorKey(), 2);
      for (int pass = 1; pass <= 2; pass++) {
        Set<String> rows = new HashSet<>();
        source.forEachTx(0, 256, (txid, file, pos, off) -> rows.add(row(txid, file, pos, off)));
        assertEquals(truth, rows, "pass " + pass);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Fixtures.Archive.class,
      names = {"REGTEST_MULTIFILE", "REGTEST_B", "MAINNET_LDB"})
  void everyLegacyRowCoreWrotePlusTheGenesisCoinbase(Fixtures.Archive a) throws IOException {
    Path dd = Fixtures.extract(a, tmp.resolve("data"));
    Set<String> rows = new HashSet<>();
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      idx.forEachTx((txid, file, pos, off) -> rows.add(row(txid, file, pos, off)));
      BlockInfo g = idx.activeBlockAt(0).orElseThrow();
      rows.add(row(java.util.Arrays.copyOfRange(g.header(), 36, 68), g.file(), g.dataPos(), 1));
      assertEquals(rows, fromBlockData(idx));
    }
  }

  /**
   * A damaged byte inside a transaction still parses, so without the merkle check the build would
   * have put a txid no one asks for into the filters and answered the real one "absent".
   */
  @Test
  void aDamagedTransactionIsRefusedNamingItsBlockNotHashedToAnotherTxid() throws IOException {
    Path dd = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, tmp.resolve("data"));
    GroundTruth truth = GroundTruth.load(Fixtures.Archive.MAINNET_LDB, dd);
    GroundTruth.Tx payment =
        truth.txs().stream()
            .filter(t -> t.block().height() == 170 && t.txOffset() > 1)
            .findFirst()
            .orElseThrow();
    try (RandomAccessFile blk =
        new RandomAccessFile(dd.resolve("blocks/blk00000.dat").toFile(), "rw")) {
      long version = payment.dataPos() + 80 + payment.txOffset(); // 1 -> 3: still parses
      blk.seek(version);
      int b = blk.read();
      blk.seek(version);
      blk.write(b ^ 0x02);
    }
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      IndexReadException e = assertThrows(IndexReadException.class, () -> fromBlockData(idx));
      assertTrue(e.getMessage().contains("block at " + payment.dataPos()), e.getMessage());
      assertTrue(e.getMessage().contains("merkle root"), e.getMessage());
    }
  }

  @Test
  void aSegwitAndALegacyTransactionHashLikeBitcoinj() throws Exception {
    // a real segwit spend and a real non-segwit transaction of the hashed fixture, via bitcoinj
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.HASHED_MULTIFILE, tmp.resolve("data"));
    int segwit = 0;
    int legacy = 0;
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      for (HashedFixtures.TruthRow r :
          HashedFixtures.rows(HashedFixtures.Archive.HASHED_MULTIFILE)) {
        Transaction tx = idx.readTransaction(idx.findTx(r.txidInternal()).orElseThrow());
        byte[] bytes = tx.serialize();
        byte[] out = new byte[32];
        assertEquals(
            bytes.length, new TxidHasher().hash(bytes, 0, bytes.length, out, 0), r.txidHex());
        assertEquals(r.txidHex(), HashKeys.toDisplayHex(out));
        byte[] copy = bytes.clone();
        new TxidHasher().hashOverwritingWitness(copy, 0, copy.length, out, 0);
        assertEquals(r.txidHex(), HashKeys.toDisplayHex(out), "in place");
        if (tx.hasWitnesses()) {
          segwit++;
        } else {
          legacy++;
        }
      }
    }
    assertEquals(true, segwit > 100 && legacy > 100, segwit + " segwit, " + legacy + " legacy");
  }

  @Test
  void truncatedOrFlaggedGarbageIsRefused() {
    byte[] tx =
        java.util.HexFormat.of()
            .parseHex(
                "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff0704ffff001d0104"
                    + "ffffffff0100f2052a0100000043410496b538e853519c726a2c91e61ec11600ae1390813a627c66fb8be7947be63c52da"
                    + "7589379515d4e0a604f8141781e62294721166bf621e73a82cbf2342c858eeac00000000");
    byte[] out = new byte[32];
    assertThrows(
        CorruptRecordException.class, () -> new TxidHasher().hash(tx, 0, tx.length - 1, out, 0));
    byte[] unknownFlag = tx.clone();
    unknownFlag[4] = 0;
    unknownFlag[5] = 2; // marker 0, flag 2: Core's "Unknown transaction optional data"
    assertThrows(
        CorruptRecordException.class,
        () -> new TxidHasher().hash(unknownFlag, 0, unknownFlag.length, out, 0));
  }
}
