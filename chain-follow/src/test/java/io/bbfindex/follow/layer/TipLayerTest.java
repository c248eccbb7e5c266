package io.bbfindex.follow.layer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TipLayerTest {
  private final SplittableRandom random = new SplittableRandom(12);

  private Hash32 randomHash() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return Hash32.ofInternal(b);
  }

  private DecodedBlock block(Hash32 prev, int txs) {
    Hash32[] ids = new Hash32[txs];
    long[] offsets = new long[txs];
    for (int i = 0; i < txs; i++) {
      ids[i] = randomHash();
      offsets[i] = 1 + 200L * i;
    }
    return new DecodedBlock(randomHash(), prev, ids, offsets);
  }

  @Test
  void connectedTxsAreConfirmedWithDepthAndLocationAndDisconnectedOnesStale() {
    Hash32 base = randomHash();
    TipLayer tip = new TipLayer(base, 100);
    DecodedBlock b1 = block(base, 3);
    DecodedBlock b2 = block(b1.hash(), 2);
    tip.connect(b1, new BlockPosition(4, 8));
    tip.connect(b2, null);
    assertEquals(102, tip.tipHeight());
    TipAnswer.Confirmed c =
        assertInstanceOf(TipAnswer.Confirmed.class, tip.lookup(b1.txids()[2]).orElseThrow());
    assertEquals(b1.hash(), c.blockHash());
    assertEquals(101, c.height());
    assertEquals(2, c.confirmations());
    assertEquals(new BlockPosition(4, 8), c.location());
    assertEquals(401, c.txOffset());
    assertNull(((TipAnswer.Confirmed) tip.lookup(b2.txids()[0]).orElseThrow()).location());

    assertEquals(b2, tip.disconnectTip());
    TipAnswer.Stale s =
        assertInstanceOf(TipAnswer.Stale.class, tip.lookup(b2.txids()[1]).orElseThrow());
    assertEquals(b2.hash(), s.blockHash());
    assertEquals(
        1, ((TipAnswer.Confirmed) tip.lookup(b1.txids()[0]).orElseThrow()).confirmations());
    assertEquals(b1.hash(), tip.tipHash());
  }

  @Test
  void aTxMinedAgainInTheWinningBranchIsConfirmedThereNotStale() {
    Hash32 base = randomHash();
    TipLayer tip = new TipLayer(base, 0);
    DecodedBlock lost = block(base, 2);
    tip.connect(lost, null);
    tip.disconnectTip();
    Hash32 moved = lost.txids()[1];
    DecodedBlock won =
        new DecodedBlock(
            randomHash(), base, new Hash32[] {randomHash(), moved}, new long[] {1, 90});
    tip.connect(won, null);
    TipAnswer.Confirmed c =
        assertInstanceOf(TipAnswer.Confirmed.class, tip.lookup(moved).orElseThrow());
    assertEquals(won.hash(), c.blockHash());
    assertEquals(1, tip.staleCount(), "only the lost coinbase stays stale");
  }

  @Test
  void aReorgIntoTheSnapshotsBlocksMakesTheBaseBlockStaleAndBuildsOnItsParent() {
    Hash32 parent = randomHash();
    DecodedBlock snapshotTip = block(parent, 3);
    TipLayer tip = new TipLayer(snapshotTip.hash(), 50);
    DecodedBlock above = block(snapshotTip.hash(), 1);
    tip.connect(above, null);
    assertThrows(IllegalStateException.class, () -> tip.disconnectBase(snapshotTip));
    tip.disconnectTip();
    assertThrows(IllegalArgumentException.class, () -> tip.disconnectBase(above));
    tip.disconnectBase(snapshotTip);
    assertEquals(parent, tip.tipHash());
    assertEquals(49, tip.tipHeight());
    TipAnswer.Stale s =
        assertInstanceOf(TipAnswer.Stale.class, tip.lookup(snapshotTip.txids()[1]).orElseThrow());
    assertEquals(snapshotTip.hash(), s.blockHash());
    assertEquals(50, s.height());
    assertTrue(tip.mightContain(snapshotTip.txids()[1].internal(), 0));
    DecodedBlock winner =
        new DecodedBlock(
            randomHash(), parent, new Hash32[] {snapshotTip.txids()[1]}, new long[] {1});
    tip.connect(winner, null);
    assertEquals(
        50, ((TipAnswer.Confirmed) tip.lookup(snapshotTip.txids()[1]).orElseThrow()).height());
  }

  @Test
  void refusesABlockThatDoesNotBuildOnTheTipAndADisconnectBelowTheBase() {
    TipLayer tip = new TipLayer(randomHash(), 5);
    assertThrows(IllegalArgumentException.class, () -> tip.connect(block(randomHash(), 1), null));
    assertThrows(IllegalStateException.class, tip::disconnectTip);
  }

  @Test
  void filterGrowsWithoutLosingATxidAndForgetsDisconnectedOnes() {
    Hash32 base = randomHash();
    TipLayer tip = new TipLayer(base, 0);
    List<DecodedBlock> blocks = new ArrayList<>();
    Hash32 prev = base;
    for (int i = 0; i < 40; i++) { // 40 x 500 txids: well past the first table's 4096 slots
      DecodedBlock b = block(prev, 500);
      tip.connect(b, null);
      blocks.add(b);
      prev = b.hash();
    }
    for (DecodedBlock b : blocks) {
      for (Hash32 t : b.txids()) {
        assertTrue(tip.mightContain(t.internal(), 0), "no false negative after growth");
      }
    }
    int falsePositives = 0;
    for (int i = 0; i < 20_000; i++) {
      if (tip.mightContain(randomHash().internal(), 0)) {
        falsePositives++;
      }
    }
    assertTrue(
        falsePositives < 20,
        "16-bit fingerprints: about 1e-4, saw " + falsePositives + " in 20000");
    assertFalse(tip.lookup(randomHash()).isPresent());
  }
}
