package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The tip on its own: growth past the cuckoo filter's first size, reorg removal, promotion. */
class TipTest {
  private final SplittableRandom random = new SplittableRandom(7);

  private TxHash hash() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return TxHash.of(b, 0);
  }

  private BlockTxs block(long n, TxHash parent, int txs) {
    List<TxHash> list = new ArrayList<>();
    for (int i = 0; i < txs; i++) {
      list.add(hash());
    }
    return new BlockTxs(n, hash(), parent, list);
  }

  @Test
  void growsReorgsAndPromotesWithoutLosingOrKeepingAHash() {
    Tip tip = new Tip();
    List<BlockTxs> chain = new ArrayList<>();
    TxHash parent = hash();
    for (long n = 100; n < 140; n++) {
      BlockTxs b = block(n, parent, 500); // 20,000 keys: the 4,096-key filter is rebuilt larger
      tip.append(b);
      chain.add(b);
      parent = b.hash();
    }
    assertEquals(20_000, tip.txCount());
    for (BlockTxs b : chain) {
      for (int i = 0; i < b.txs().size(); i += 37) {
        assertEquals(
            new EthTxLocation(b.number(), b.hash(), i),
            tip.find(b.txs().get(i).toBytes(), 0).orElseThrow());
      }
    }

    BlockTxs removed = tip.removeLast();
    assertEquals(chain.getLast(), removed);
    for (TxHash tx : removed.txs()) {
      assertTrue(tip.find(tx.toBytes(), 0).isEmpty(), "a reorged-out hash is gone");
    }
    BlockTxs fork = block(139, chain.get(38).hash(), 3);
    tip.append(fork);
    assertEquals(139, tip.find(fork.txs().get(2).toBytes(), 0).orElseThrow().blockNumber());
    assertThrows(
        IllegalArgumentException.class, () -> tip.append(block(140, hash(), 1)), "parent mismatch");

    tip.removeBelow(120);
    assertEquals(120, tip.first().orElseThrow().number());
    assertTrue(
        tip.find(chain.get(5).txs().get(0).toBytes(), 0).isEmpty(),
        "promoted blocks leave the tip");
    assertEquals(
        chain.get(25).number(),
        tip.find(chain.get(25).txs().get(499).toBytes(), 0).orElseThrow().blockNumber());
    assertEquals(19 * 500 + 3, tip.txCount());
  }
}
