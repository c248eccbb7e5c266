package io.bbfindex.ingest.chain;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.bitcoinj.base.Sha256Hash;
import org.junit.jupiter.api.Test;

/**
 * Fork choice on block trees built from real header serialization (hash = SHA-256d of the 80 bytes,
 * parents linked by hash), so the same code path as on a node's index.
 */
class ActiveChainTest {

  private static final long EASY = 0x207fffffL; // regtest: proof 2
  private static final long HARD = 0x1d00ffffL; // mainnet difficulty 1: proof 0x100010001
  private static final int VALID =
      BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA | BlockStatus.HAVE_UNDO;

  private final List<DiskBlockIndex> blocks = new ArrayList<>();
  private long nextPos = 8;
  private int nonce;

  private DiskBlockIndex add(DiskBlockIndex parent, long bits, int status, int nTx) {
    byte[] header = new byte[80];
    ByteBuffer le = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    le.putInt(0, 1);
    if (parent != null) {
      System.arraycopy(parent.hash(), 0, header, 4, 32);
    }
    le.putInt(68, 1_600_000_000 + nonce);
    le.putInt(72, (int) bits);
    le.putInt(76, nonce++);
    DiskBlockIndex b =
        new DiskBlockIndex(
            Sha256Hash.hashTwice(header),
            259900,
            parent == null ? 0 : parent.height() + 1,
            status,
            nTx,
            0,
            nextPos,
            -1,
            header);
    nextPos += 1000;
    blocks.add(b);
    return b;
  }

  private DiskBlockIndex extend(DiskBlockIndex from, int n, long bits) {
    DiskBlockIndex b = from;
    for (int i = 0; i < n; i++) {
      b = add(b, bits, VALID, 1);
    }
    return b;
  }

  private ActiveChain chain() throws CorruptRecordException {
    List<DiskBlockIndex> shuffled = new ArrayList<>(blocks);
    Collections.shuffle(
        shuffled, new Random(7)); // the order of LevelDB keys is the order of hashes
    return ActiveChain.compute(shuffled).orElseThrow();
  }

  @Test
  void blockProofMatchesCore() {
    assertEquals(BigInteger.valueOf(0x1_0001_0001L), ChainWork.blockProof(HARD));
    assertEquals(BigInteger.TWO, ChainWork.blockProof(EASY));
    assertEquals(BigInteger.ZERO, ChainWork.blockProof(0)); // zero target
    assertEquals(BigInteger.ZERO, ChainWork.blockProof(0x04923456L)); // negative (sign bit)
    assertEquals(BigInteger.ZERO, ChainWork.blockProof(0xff123456L)); // overflows 256 bits
  }

  @Test
  void aLinearChainEndsAtItsLastBlock() throws CorruptRecordException {
    DiskBlockIndex genesis = add(null, EASY, VALID, 1);
    DiskBlockIndex tip = extend(genesis, 9, EASY);
    ActiveChain c = chain();
    assertEquals(9, c.tipHeight());
    assertArrayEquals(tip.hash(), c.tip().hash());
    assertEquals(BigInteger.valueOf(20), c.tipWork());
    assertArrayEquals(genesis.hash(), c.at(0).orElseThrow().hash());
  }

  @Test
  void aChainRebuiltFromItsRowsAnswersAsTheComputedOne() throws CorruptRecordException {
    // a fork with stale blocks, difficulty changes (several nBits runs) and works beyond two longs
    long tiny = 0x03000001L;
    DiskBlockIndex fork = extend(add(null, HARD, VALID, 1), 2, HARD);
    DiskBlockIndex stale = extend(fork, 6, EASY);
    extend(extend(fork, 2, tiny), 3, HARD);
    List<DiskBlockIndex> shuffled = new ArrayList<>(blocks);
    Collections.shuffle(shuffled, new Random(7));
    BlockTable table = BlockTable.of(shuffled);
    ActiveChain computed = ActiveChain.compute(table).orElseThrow();
    ActiveChain kept =
        ActiveChain.ofCachedRows(table, computed.rows(), computed.tipWork()).orElseThrow();
    assertEquals(computed.tipHeight(), kept.tipHeight());
    assertEquals(computed.tipWork(), kept.tipWork());
    assertArrayEquals(computed.tip().hash(), kept.tip().hash());
    for (int h = -1; h <= computed.tipHeight() + 1; h++) {
      assertEquals(computed.at(h).map(b -> b.height()), kept.at(h).map(b -> b.height()));
      if (h >= 0 && h <= computed.tipHeight()) {
        assertEquals(computed.rowAt(h), kept.rowAt(h));
      }
    }
    for (int r = 0; r < table.size(); r++) {
      assertEquals(computed.containsRow(r), kept.containsRow(r));
      assertEquals(computed.contains(table.record(r)), kept.contains(table.record(r)));
    }
    assertFalse(kept.contains(stale));
  }

  /**
   * The kept chain's work is summed from nBits gathered in row order, not chain order: with a
   * difficulty that changes at every block, spread over a mainnet difficulty and regtest's, it must
   * still be the work {@link ActiveChain#compute} walks, to the unit.
   */
  @Test
  void aKeptChainWithManyDifficultiesHasTheComputedWork() throws CorruptRecordException {
    DiskBlockIndex b = add(null, EASY, VALID, 1);
    for (int i = 0; i < 1500; i++) {
      b = add(b, (i % 2 == 0 ? EASY : HARD) - i / 2, VALID, 1);
    }
    BlockTable table = BlockTable.of(blocks);
    ActiveChain computed = ActiveChain.compute(table).orElseThrow();
    assertEquals(1500, computed.tipHeight());
    ActiveChain kept =
        ActiveChain.ofCachedRows(table, computed.rows(), computed.tipWork()).orElseThrow();
    assertEquals(computed.tipWork(), kept.tipWork());
    assertTrue(
        ActiveChain.ofCachedRows(
                table, computed.rows(), computed.tipWork().subtract(BigInteger.ONE))
            .isEmpty());
  }

  @Test
  void rowsThatAreNotTheTablesChainAreRefused() throws CorruptRecordException {
    DiskBlockIndex fork = extend(add(null, EASY, VALID, 1), 3, EASY);
    extend(fork, 2, EASY);
    DiskBlockIndex staleTip = extend(fork, 1, EASY);
    BlockTable table = BlockTable.of(blocks);
    ActiveChain c = ActiveChain.compute(table).orElseThrow();
    int[] rows = c.rows();
    BigInteger work = c.tipWork();
    assertTrue(ActiveChain.ofCachedRows(table, rows, work).isPresent());
    assertTrue(ActiveChain.ofCachedRows(table, new int[0], work).isEmpty(), "no genesis");
    assertTrue(ActiveChain.ofCachedRows(table, rows, work.add(BigInteger.ONE)).isEmpty());
    int[] swapped = rows.clone();
    swapped[1] = rows[2];
    swapped[2] = rows[1];
    assertTrue(ActiveChain.ofCachedRows(table, swapped, work).isEmpty(), "heights out of order");
    int[] outside = rows.clone();
    outside[0] = table.size();
    assertTrue(ActiveChain.ofCachedRows(table, outside, work).isEmpty(), "no such row");
    int[] negative = rows.clone();
    negative[3] = -1;
    assertTrue(ActiveChain.ofCachedRows(table, negative, work).isEmpty(), "no such row");
    // the stale block below the tip in place of the active one: heights and work agree, the
    // tip's parent does not
    int[] staleAbove = rows.clone();
    staleAbove[staleTip.height()] = rowOf(table, staleTip);
    assertTrue(
        ActiveChain.ofCachedRows(table, staleAbove, work).isEmpty(),
        "a block that is not its predecessor's child");
  }

  private static int rowOf(BlockTable table, DiskBlockIndex b) {
    for (int r = 0; r < table.size(); r++) {
      if (table.hashEquals(r, b.hash(), 0)) {
        return r;
      }
    }
    throw new AssertionError();
  }

  @Test
  void worksBeyondTwoLongsAreSummedExactly() throws CorruptRecordException {
    // proof 2^255 - 1 (target 1): beyond the two longs the usual walk sums works in, so the walk
    // is made again with BigIntegers; and the fork with a hard block still wins on its work alone
    long tiny = 0x03000001L;
    BigInteger tinyProof = ChainWork.blockProof(tiny);
    DiskBlockIndex fork = extend(add(null, HARD, VALID, 1), 2, HARD);
    extend(fork, 6, HARD);
    DiskBlockIndex heavy = extend(fork, 2, tiny);
    ActiveChain c = chain();
    assertArrayEquals(heavy.hash(), c.tip().hash());
    BigInteger hard = ChainWork.blockProof(HARD);
    assertEquals(hard.multiply(BigInteger.valueOf(3)).add(tinyProof.shiftLeft(1)), c.tipWork());
  }

  @Test
  void worksInTwoLongsCarryAcrossTheLowHalf() throws CorruptRecordException {
    // proof just above 2^65 (target 0x7fffff << 168): the low long carries into the high one
    long bits = 0x187fffffL;
    BigInteger proof = ChainWork.blockProof(bits);
    DiskBlockIndex tip = extend(add(null, bits, VALID, 1), 40, bits);
    ActiveChain c = chain();
    assertArrayEquals(tip.hash(), c.tip().hash());
    assertEquals(proof.multiply(BigInteger.valueOf(41)), c.tipWork());
  }

  @Test
  void mostWorkWinsOverMostBlocks() throws CorruptRecordException {
    DiskBlockIndex fork = extend(add(null, EASY, VALID, 1), 5, EASY);
    DiskBlockIndex longEasy = extend(fork, 4, EASY);
    DiskBlockIndex shortHard = extend(fork, 2, HARD);
    ActiveChain c = chain();
    assertArrayEquals(shortHard.hash(), c.tip().hash());
    assertEquals(7, c.tipHeight());
    assertFalse(c.contains(longEasy));
    assertTrue(c.contains(fork));
  }

  @Test
  void equalWorkGoesToTheBlockStoredFirst() throws CorruptRecordException {
    DiskBlockIndex fork = extend(add(null, EASY, VALID, 1), 3, EASY);
    DiskBlockIndex first = extend(fork, 2, EASY);
    DiskBlockIndex second = extend(fork, 2, EASY);
    ActiveChain c = chain();
    assertArrayEquals(first.hash(), c.tip().hash());
    assertFalse(c.contains(second));
  }

  @Test
  void failedBlocksAndTheirDescendantsAreNeverChosen() throws CorruptRecordException {
    DiskBlockIndex fork = extend(add(null, EASY, VALID, 1), 3, EASY);
    DiskBlockIndex good = extend(fork, 2, EASY);
    DiskBlockIndex bad = add(fork, EASY, VALID | BlockStatus.FAILED_VALID, 1);
    extend(bad, 5, EASY); // more work, but built on an invalid block
    assertArrayEquals(good.hash(), chain().tip().hash());
  }

  @Test
  void headersWithoutTransactionsCannotBeTheTip() throws CorruptRecordException {
    DiskBlockIndex tip = extend(add(null, EASY, VALID, 1), 4, EASY);
    DiskBlockIndex h = tip;
    for (int i = 0; i < 10; i++) {
      h = add(h, EASY, BlockStatus.VALID_TREE, 0); // header-only (still downloading)
    }
    assertArrayEquals(tip.hash(), chain().tip().hash());
  }

  @Test
  void aHeightInconsistentWithTheParentIsCorruption() {
    DiskBlockIndex genesis = add(null, EASY, VALID, 1);
    DiskBlockIndex b1 = add(genesis, EASY, VALID, 1);
    DiskBlockIndex b2 = add(b1, EASY, VALID, 1);
    blocks.set(
        2, new DiskBlockIndex(b2.hash(), 1, 7, b2.status(), 1, 0, b2.dataPos(), -1, b2.header()));
    CorruptRecordException e =
        assertThrows(CorruptRecordException.class, () -> ActiveChain.compute(blocks));
    assertTrue(e.getMessage().contains("height 7"), e.getMessage());
  }

  @Test
  void noCandidateMeansNoChain() throws CorruptRecordException {
    add(null, EASY, BlockStatus.VALID_TREE, 0);
    assertTrue(ActiveChain.compute(blocks).isEmpty());
  }
}
