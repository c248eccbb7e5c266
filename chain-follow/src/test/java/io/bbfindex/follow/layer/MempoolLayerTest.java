package io.bbfindex.follow.layer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.ArrayList;
import java.util.List;
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
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong probes = new AtomicLong();
    Thread reader =
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
    for (int i = 0; i < 40; i++) {
      assertEquals(4_000, m.replaceAll(i % 2 == 0 ? b : a), "2,000 added and 2,000 removed");
    }
    stop.set(true);
    reader.join();
    assertTrue(probes.get() > 0);
    assertEquals(
        0, misses.get(), "txids in the mempool before and after a resync, missed during it");
    assertEquals(a.size(), m.size());
    for (Hash32 t : b.subList(20_000, 22_000)) {
      assertFalse(m.contains(t));
    }
    assertEquals(
        sizedLoad, m.filterLoad(), 1e-9, "in place: the filter was neither rebuilt nor grown");
  }
}
