package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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

  /**
   * Lookups read the filter optimistically while the follower appends, reorgs and rebuilds the
   * filter larger: a hash of a block that stays must be found every time, never read as a "no" from
   * a half-written filter.
   */
  @Test
  void lookupsDuringWritesNeverMissAHashThatStays() throws Exception {
    Tip tip = new Tip();
    BlockTxs base = block(1, hash(), 200);
    tip.append(base);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong lookups = new AtomicLong();
    long deadline = System.nanoTime() + 1_500_000_000L;
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      readers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      while (System.nanoTime() < deadline) {
                        for (int i = 0; i < base.txs().size(); i++) {
                          EthTxLocation at = tip.find(base.txs().get(i).toBytes(), 0).orElseThrow();
                          assertEquals(new EthTxLocation(1, base.hash(), i), at);
                        }
                        lookups.addAndGet(base.txs().size());
                      }
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    int rounds = 0;
    while (System.nanoTime() < deadline && failure.get() == null) {
      // 36 blocks of 400 on top: past the first filter's 8,192 slots (rebuilt with 16,384), then
      // to about 90% of those, where inserts move fingerprints, the base's among them, along kick
      // chains; then a reorg takes them all off again.
      TxHash parent = base.hash();
      for (long n = 2; n < 38; n++) {
        BlockTxs b = block(n, parent, 400);
        tip.append(b);
        parent = b.hash();
      }
      while (tip.last().orElseThrow().number() > 1) {
        tip.removeLast();
      }
      rounds++;
    }
    for (Thread r : readers) {
      r.join();
    }
    if (failure.get() != null) {
      throw new AssertionError("after " + lookups.get() + " lookups", failure.get());
    }
    assertTrue(rounds > 0 && lookups.get() > 0, rounds + " rounds, " + lookups.get() + " lookups");
  }
}
