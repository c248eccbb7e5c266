package io.bbfindex.follow.layer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TxidTableTest {

  /**
   * The table against a {@code HashSet}: random adds and removes (many keys sharing an 8-byte
   * prefix, so runs collide and removal's back shifts wrap around the table), growth and trim.
   */
  @Test
  void agreesWithAHashSetThroughAddsRemovesGrowthAndTrim() {
    SplittableRandom random = new SplittableRandom(11);
    TxidTable table = new TxidTable();
    Set<Hash32> truth = new HashSet<>();
    List<byte[]> universe = new ArrayList<>();
    for (int i = 0; i < 6_000; i++) {
      byte[] k = new byte[Hash32.BYTES];
      random.nextBytes(k);
      if (i % 3 == 0 && i > 0) {
        System.arraycopy(universe.get(random.nextInt(Math.max(1, universe.size()))), 0, k, 0, 8);
      }
      if (i == 1) {
        k = new byte[Hash32.BYTES]; // the all-zero key is a key like any other
      }
      universe.add(k);
    }
    for (int step = 0; step < 60_000; step++) {
      byte[] k = universe.get(random.nextInt(universe.size()));
      boolean grow = step < 30_000 ? random.nextInt(10) < 7 : random.nextInt(10) < 2;
      if (grow) {
        assertEquals(truth.add(Hash32.ofInternal(k)), table.add(k, 0));
      } else {
        assertEquals(truth.remove(Hash32.ofInternal(k)), table.remove(k, 0));
      }
      if (step % 5_000 == 0) {
        table.trim();
      }
    }
    table.trim();
    assertEquals(truth.size(), table.size());
    for (byte[] k : universe) {
      assertEquals(truth.contains(Hash32.ofInternal(k)), table.contains(k, 0));
    }
    int used = 0;
    for (int i = 0; i < table.capacity(); i++) {
      used += table.isUsed(i) ? 1 : 0;
    }
    assertEquals(truth.size(), used);
    assertTrue(
        table.capacity() <= Math.max(1024, 4 * truth.size()), "trimmed: " + table.capacity());
  }
}
