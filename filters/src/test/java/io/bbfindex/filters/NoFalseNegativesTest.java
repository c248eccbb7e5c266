package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;

/** Every inserted key is found, single and batched, over every geometry (fixed seeds). */
class NoFalseNegativesTest {

  private static void assertAllFound(BbfGeometry g, long salt, byte[] keys, long seed) {
    int n = TestKeys.count(keys);
    try (BlockedBloomFilter f = BlockedBloomFilter.create(g, salt)) {
      for (int i = 0; i < n; i++) {
        f.add(keys, i * 32);
      }
      assertEquals(n, f.count());
      for (int i = 0; i < n; i++) {
        if (!f.mightContain(keys, i * 32)) {
          fail(
              "false negative: key "
                  + i
                  + " of "
                  + n
                  + " in "
                  + g
                  + " salt="
                  + salt
                  + " seed="
                  + seed
                  + " kernel="
                  + f.kernel());
        }
      }
      boolean[] out = new boolean[n];
      f.mightContainBatch(keys, n, out);
      for (int i = 0; i < n; i++) {
        if (!out[i]) {
          fail("false negative (batch): key " + i + " in " + g + " seed=" + seed);
        }
      }
    }
  }

  @Test
  void twoMillionKeysInTheTwoFullCacheLineGeometries() {
    long seed = 1_000_003;
    byte[] keys = TestKeys.random(seed, 2_000_000);
    assertAllFound(new BbfGeometry(1 << 15, 8, 64), 0, keys, seed); // 8 bits per key
    assertAllFound(new BbfGeometry(1 << 15, 16, 32), 0x1234L, keys, seed); // salted
  }

  @Test
  void everyGeometryAtSeveralSizes() {
    long seed = 4242;
    byte[] keys = TestKeys.concat(TestKeys.random(seed, 200_000), TestKeys.adversarial(seed));
    byte[] blockHashes = TestKeys.blockHashLike(seed + 1, 20_000, 10);
    for (int[] shape : TestKeys.shapes()) {
      int k = shape[0];
      int lw = shape[1];
      // about 10 bits per key, salted and not
      long groups = Long.highestOneBit(200_000L * 10 / (k * lw));
      assertAllFound(new BbfGeometry(groups, k, lw), 0, keys, seed);
      assertAllFound(new BbfGeometry(groups, k, lw), -7L, keys, seed);
      // tiny and saturated filters: everything is a "maybe", still never a "no" for a member
      for (long tiny : new long[] {1, 2, 8}) {
        assertAllFound(new BbfGeometry(tiny, k, lw), 0, TestKeys.random(seed + tiny, 2000), seed);
      }
      assertAllFound(new BbfGeometry(1024, k, lw), 0, blockHashes, seed + 1);
    }
  }
}
