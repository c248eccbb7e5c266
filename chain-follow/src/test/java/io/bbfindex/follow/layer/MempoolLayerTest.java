package io.bbfindex.follow.layer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MempoolLayerTest {
  private final SplittableRandom random = new SplittableRandom(7);

  private List<Hash32> hashes(int n) {
    List<Hash32> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] b = new byte[32];
      random.nextBytes(b);
      l.add(Hash32.ofInternal(b));
    }
    return l;
  }

  @Test
  void addRemoveAndBlockInclusionKeepTheSetAndFilterExact() {
    MempoolLayer m = new MempoolLayer();
    List<Hash32> txs = hashes(10);
    txs.forEach(m::add);
    m.add(txs.get(0)); // a duplicate A changes nothing
    assertEquals(10, m.size());
    m.remove(txs.get(1));
    m.removeAll(new Hash32[] {txs.get(2), txs.get(3), hashes(1).get(0)});
    assertEquals(7, m.size());
    assertFalse(m.contains(txs.get(2)));
    for (Hash32 t : txs.subList(4, 10)) {
      assertTrue(m.mightContain(t.internal(), 0));
    }
  }

  @Test
  void resyncReplacesByDifferenceAndAfterwardsHoldsExactlyTheNewSet() {
    MempoolLayer m = new MempoolLayer();
    List<Hash32> before = hashes(3000);
    before.forEach(m::add);
    List<Hash32> now = new ArrayList<>(before.subList(1000, 3000));
    now.addAll(hashes(50_000));
    int changed = m.replaceAll(now);
    assertEquals(1000 + 50_000, changed);
    assertEquals(now.size(), m.size());
    for (Hash32 t : now) {
      assertTrue(m.mightContain(t.internal(), 0));
    }
    for (Hash32 t : before.subList(0, 1000)) {
      assertFalse(m.contains(t));
    }
    assertTrue(
        m.filterLoad() > 0.1 && m.filterLoad() < 0.96, "sized for the new set: " + m.filterLoad());
  }

  @Test
  void aSmallResyncIsAppliedInPlaceAndNeverHidesATxidKeptAcrossIt() throws Exception {
    MempoolLayer m = new MempoolLayer();
    List<Hash32> kept = hashes(20_000);
    List<Hash32> a = new ArrayList<>(kept);
    a.addAll(hashes(2_000));
    List<Hash32> b = new ArrayList<>(kept);
    b.addAll(hashes(2_000));
    m.replaceAll(a);
    double sizedLoad = m.filterLoad();
    KeptTxidsReader reader = new KeptTxidsReader(m, kept);
    for (int i = 0; i < 40; i++) {
      assertEquals(4_000, m.replaceAll(i % 2 == 0 ? b : a), "2,000 added and 2,000 removed");
    }
    reader.stopAndAssertNoMiss();
    assertEquals(a.size(), m.size());
    for (Hash32 t : b.subList(20_000, 22_000)) {
      assertFalse(m.contains(t));
    }
    assertEquals(sizedLoad, m.filterLoad(), 1e-9, "the filter stays sized for the set");
  }

  /**
   * The writer's whole repertoire (ZMQ adds and removes, block inclusions, resyncs that add, remove
   * and shrink) against a {@code HashSet} model after every step, while a reader probes txids that
   * never leave the mempool: no miss, and afterwards set and filter exact.
   */
  @Test
  void eventsBlocksAndResyncsInAnyOrderKeepTheViewExactAndNeverHideAKeptTxid() throws Exception {
    MempoolLayer m = new MempoolLayer();
    List<Hash32> kept = hashes(3_000);
    kept.forEach(m::add);
    KeptTxidsReader reader = new KeptTxidsReader(m, kept);
    Set<Hash32> model = new HashSet<>(kept);
    List<Hash32> others = new ArrayList<>();
    for (int step = 0; step < 200; step++) {
      switch (random.nextInt(4)) {
        case 0 -> { // ZMQ A
          Hash32 t = hashes(1).getFirst();
          m.add(t);
          model.add(t);
          others.add(t);
        }
        case 1 -> { // ZMQ R (or a block's inclusion) of what arrived since the last resync
          if (!others.isEmpty()) {
            Hash32[] block = others.subList(0, Math.min(others.size(), 300)).toArray(Hash32[]::new);
            m.removeAll(block);
            Set<Hash32> gone = Set.of(block);
            model.removeAll(gone);
            others.removeAll(gone);
          }
        }
        case 2 -> { // a resync: some arrivals kept, some gone, some new; sometimes a big swing
          List<Hash32> now = new ArrayList<>(kept);
          others.removeIf(t -> random.nextBoolean());
          others.addAll(hashes(random.nextInt(10) == 0 ? 8_000 : random.nextInt(500)));
          now.addAll(others);
          int expected = 0;
          for (Hash32 t : now) {
            expected += model.contains(t) ? 0 : 1;
          }
          expected += model.size() - (now.size() - expected);
          assertEquals(expected, m.replaceAll(now));
          model.clear();
          model.addAll(now);
        }
        default -> { // a lone removal of a txid we never had changes nothing
          m.remove(hashes(1).getFirst());
        }
      }
      assertEquals(model.size(), m.size(), "step " + step);
    }
    reader.stopAndAssertNoMiss();
    for (Hash32 t : model) {
      assertTrue(m.contains(t) && m.mightContain(t.internal(), 0));
    }
    for (Hash32 t : hashes(2_000)) {
      assertFalse(m.contains(t));
    }
    assertTrue(m.filterLoad() > 0.1, "the filter was not left oversized: " + m.filterLoad());
  }

  /** A thread that looks up, over and over, txids the writer never removes: none may be missed. */
  private static final class KeptTxidsReader {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final Thread thread;

    KeptTxidsReader(MempoolLayer m, List<Hash32> kept) {
      thread =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      for (Hash32 t : kept) {
                        probes.incrementAndGet();
                        if (!m.mightContain(t.internal(), 0) || !m.contains(t)) {
                          misses.incrementAndGet();
                        }
                      }
                    }
                  });
    }

    void stopAndAssertNoMiss() throws InterruptedException {
      stop.set(true);
      thread.join();
      assertTrue(probes.get() > 0);
      assertEquals(0, misses.get(), "txids kept in the mempool, missed while the writer worked");
    }
  }
}
