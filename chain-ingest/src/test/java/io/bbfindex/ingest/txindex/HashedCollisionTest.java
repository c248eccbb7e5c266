package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.blockfile.DamagedBlockException;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.HashedFixtures;
import io.bbfindex.ingest.testing.HashedFixtures.Archive;
import io.bbfindex.ingest.testing.HashedFixtures.TruthRow;
import io.bbfindex.ingest.testing.HashedIndexRewriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two txids whose 40-bit prefixes collide are both answered right: every row with the prefix is
 * read and its transaction's txid compared. The collision is made two ways on a copy of the real
 * hashed fixture: (1) under a salt ground for it, the index rewritten as Core's {@code -reindex}
 * would (new salt, every row re-keyed) so that two real txids share a prefix; (2) under the index's
 * own salt, by adding the rows a collision would produce (A's prefix at B's position and vice
 * versa).
 */
class HashedCollisionTest {

  /**
   * A salt under which {@link #TXID_A} and {@link #TXID_B} (both in the fixture) have the same
   * 40-bit prefix, found by trying salts over the fixture's 4,154 txids (birthday search, salt
   * 521,748 (k0 = 0x0b0f1e1d00000000 + 521,748, k1 fixed); about 2^41 / 4154^2 = 127k salts are
   * expected). Shared prefix c5ad8dc554.
   */
  static final long GROUND_K0 = 0x0b0f_1e1d_0007_f614L;

  static final long GROUND_K1 = 0x07e5_7c01_11d3_5a17L;
  static final String TXID_A = "8ba68ce0e670595b1c2accaf0a99dcfa156730c7ad5ac9c7fd22d401db823ac8";
  static final String TXID_B = "fe510e72c532f952efa7677060e6a44e873d56c7c3e04350050eca0aefb1c0f8";

  @TempDir Path tmp;

  private Path datadir;
  private Map<String, TruthRow> expected;

  /**
   * (block seq, offset from header) -> txid (internal order), from the truth and the 's' records.
   */
  private final Map<List<Long>, byte[]> txidAt = new HashMap<>();

  private final Map<String, Long> seqOfBlock = new HashMap<>();

  @BeforeEach
  void extract() throws IOException {
    datadir = HashedFixtures.extract(Archive.HASHED_MULTIFILE, tmp.resolve("data"));
    expected = HashedFixtures.expectedAnswers(Archive.HASHED_MULTIFILE);
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work0"))) {
      HashedTxLookup lookup = idx.hashedLookup().orElseThrow();
      for (long seq = 0; seq < 1000; seq++) {
        long s = seq;
        lookup.blockOfSeq(seq).ifPresent(b -> seqOfBlock.put(b.hashHex(), s));
      }
    }
    for (TruthRow r : HashedFixtures.rows(Archive.HASHED_MULTIFILE)) {
      if (r.indexRow().equals("x")) {
        txidAt.put(List.of(seqOfBlock.get(r.blockHashHex()), 80 + r.txOffset()), r.txidInternal());
      }
    }
  }

  private void assertAnsweredExactly(NodeIndex idx, String txidHex) {
    TruthRow r = expected.get(txidHex);
    long before = idx.leveldbReads();
    TxLocation loc =
        idx.findTx(r.txidInternal()).orElseThrow(() -> new AssertionError("not found " + r));
    assertEquals(1, idx.leveldbReads() - before, "one seek for all candidates");
    assertEquals(r.file(), loc.file(), txidHex);
    assertEquals(r.pos(), loc.dataPos(), txidHex);
    assertEquals(r.txOffset(), loc.txOffset(), txidHex);
    assertEquals(r.blockHashHex(), loc.block().hashHex(), txidHex);
  }

  @Test
  void twoRealTxidsWithTheSamePrefixUnderAGroundSaltAreBothAnswered() throws IOException {
    byte[] a = Fixtures.internal(TXID_A);
    byte[] b = Fixtures.internal(TXID_B);
    SipHash13Uj ground = new SipHash13Uj(GROUND_K0, GROUND_K1);
    assertEquals(
        ground.prefix40(a, 0), ground.prefix40(b, 0), "the ground salt makes them collide");
    HashedIndexRewriter.resalt(
        datadir.resolve("indexes/txindex"),
        GROUND_K0,
        GROUND_K1,
        (seq, off) -> txidAt.get(List.of(seq, (long) off)));
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work1"))) {
      HashedTxLookup lookup = idx.hashedLookup().orElseThrow();
      assertEquals(GROUND_K0, lookup.hasher().k0());
      assertEquals(GROUND_K1, lookup.hasher().k1());
      List<TxLocation> candidates = lookup.candidates(a);
      assertTrue(candidates.size() >= 2, "both rows share the prefix: " + candidates);
      assertEquals(candidates.size(), lookup.candidates(b).size());
      assertAnsweredExactly(idx, TXID_A);
      assertAnsweredExactly(idx, TXID_B);
      for (TruthRow r : expected.values()) {
        TxLocation loc =
            idx.findTx(r.txidInternal()).orElseThrow(() -> new AssertionError("not found " + r));
        assertEquals(r.blockHashHex(), loc.block().hashHex(), r.txidHex());
        assertEquals(r.txOffset(), loc.txOffset(), r.txidHex());
      }
    }
  }

  @Test
  void rowsOfAnotherTxidUnderTheSamePrefixAreReadAndSkipped() throws IOException {
    TruthRow a =
        expected.values().stream()
            .filter(r -> r.height() == 200 && r.txOffset() > 1)
            .findFirst()
            .orElseThrow();
    TruthRow b =
        expected.values().stream()
            .filter(r -> r.height() == 250 && r.txOffset() > 1)
            .findFirst()
            .orElseThrow();
    SipHash13Uj salt;
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work2"))) {
      salt = idx.hashedLookup().orElseThrow().hasher();
    }
    long pa = salt.prefix40(a.txidInternal(), 0);
    long pb = salt.prefix40(b.txidInternal(), 0);
    assertNotEquals(pa, pb);
    HashedIndexRewriter.addRows(
        datadir.resolve("indexes/txindex"),
        List.of(
            HashedKeys.txRowKey(pa, seqOfBlock.get(b.blockHashHex()), (int) (80 + b.txOffset())),
            HashedKeys.txRowKey(pb, seqOfBlock.get(a.blockHashHex()), (int) (80 + a.txOffset()))));
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work3"))) {
      assertEquals(2, idx.hashedLookup().orElseThrow().candidates(a.txidInternal()).size());
      assertEquals(2, idx.hashedLookup().orElseThrow().candidates(b.txidInternal()).size());
      assertAnsweredExactly(idx, a.txidHex());
      assertAnsweredExactly(idx, b.txidHex());
    }
  }

  /**
   * A bit flipped in the stored bytes of an indexed transaction makes its only candidate hash to
   * another txid, as a collision would; but its block's transactions no longer fold to the header's
   * merkle root, so the lookup fails as damage instead of answering "absent". Its neighbours in
   * other blocks are still answered, and a transaction of the damaged block whose candidate matches
   * is answered from its row without reading the rest of the block.
   */
  @Test
  void aDamagedCandidateIsDamageNotACollision() throws IOException {
    TruthRow damaged =
        expected.values().stream()
            .filter(r -> r.active() && r.height() == 250 && r.txOffset() > 1)
            .findFirst()
            .orElseThrow();
    TruthRow sameBlock =
        expected.values().stream()
            .filter(
                r ->
                    r.blockHashHex().equals(damaged.blockHashHex())
                        && !r.txidHex().equals(damaged.txidHex()))
            .findFirst()
            .orElseThrow();
    Path blk =
        datadir.resolve(String.format(java.util.Locale.ROOT, "blocks/blk%05d.dat", damaged.file()));
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(blk.toFile(), "rw")) {
      f.seek(damaged.absOffset()); // the version's low byte: still a parseable transaction
      int b = f.read();
      f.seek(damaged.absOffset());
      f.write(b ^ 0x02);
    }
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work5"))) {
      IndexReadException e =
          assertThrows(IndexReadException.class, () -> idx.findTx(damaged.txidInternal()));
      assertInstanceOf(DamagedBlockException.class, e.getCause(), e.getMessage());
      assertTrue(e.getMessage().contains("merkle root"), e.getMessage());
      assertTrue(
          e.getMessage()
              .contains(String.format(java.util.Locale.ROOT, "blk%05d.dat", damaged.file())),
          e.getMessage());
      assertAnsweredExactly(idx, sameBlock.txidHex());
      for (TruthRow r : expected.values()) {
        if (!r.blockHashHex().equals(damaged.blockHashHex()) && r.inTxindex() && r.active()) {
          assertAnsweredExactly(idx, r.txidHex());
        }
      }
    }
  }

  @Test
  void aTxidInAStaleAndAnActiveBlockIsAnsweredWithTheActiveOne() throws IOException {
    Map<String, Integer> rowsPerTxid = new HashMap<>();
    HashedFixtures.rows(Archive.HASHED_MULTIFILE)
        .forEach(r -> rowsPerTxid.merge(r.txidHex(), 1, Integer::sum));
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work4"))) {
      int twice = 0;
      for (Map.Entry<String, Integer> e : rowsPerTxid.entrySet()) {
        if (e.getValue() < 2) {
          continue;
        }
        twice++;
        byte[] txid = Fixtures.internal(e.getKey());
        List<TxLocation> c = idx.hashedLookup().orElseThrow().candidates(txid);
        assertTrue(c.stream().anyMatch(l -> !l.block().onActiveChain()), e.getKey());
        BlockInfo answered = idx.findTx(txid).orElseThrow().block();
        assertTrue(answered.onActiveChain(), e.getKey());
        assertEquals(expected.get(e.getKey()).blockHashHex(), answered.hashHex());
      }
      assertEquals(80, twice);
    }
  }
}
