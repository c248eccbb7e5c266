package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class BlockedBloomFilterTest {

  private static BlockedBloomFilter filled(BbfGeometry g, long salt, byte[] keys) {
    BlockedBloomFilter f = BlockedBloomFilter.create(g, salt);
    for (int i = 0; i < TestKeys.count(keys); i++) {
      assertTrue(f.add(keys, i * 32));
    }
    return f;
  }

  @Test
  void emptyFilterSaysNoToEverything() {
    byte[] probes = TestKeys.concat(TestKeys.random(1, 1000), TestKeys.adversarial(2));
    for (int[] s : TestKeys.shapes()) {
      try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(4, s[0], s[1]), 0)) {
        for (int i = 0; i < TestKeys.count(probes); i++) {
          assertFalse(f.mightContain(probes, i * 32));
        }
        assertEquals(0, f.count());
        assertEquals(0, f.fillRatio());
        assertEquals(0, f.modelledFpr());
        assertEquals(0, f.bits().address() % 64, "bit array must be cache-line aligned");
      }
    }
  }

  @Test
  void countFillRatioAndModelledFpr() {
    byte[] keys = TestKeys.random(3, 10_000);
    BbfGeometry g = new BbfGeometry(1024, 4, 32); // 131072 bits
    try (BlockedBloomFilter f = filled(g, 0, keys)) {
      assertEquals(10_000, f.count());
      assertEquals(g.bitSize(), f.bitSize());
      assertEquals((double) f.bitCount() / g.bitSize(), f.fillRatio());
      // Expected fill: 1 - (1 - 1/lw)^(n/r) per word, averaged: about 1 - e^(-n/(r lw)).
      double expectedFill = 1 - Math.exp(-10_000.0 / (1024 * 32));
      assertEquals(expectedFill, f.fillRatio(), 0.01);
      assertEquals(BbfSizing.modelFpr(10_000, g), f.modelledFpr());
      assertTrue(f.bitCount() <= 4L * 10_000);
    }
  }

  @Test
  void unionAnswersForBothKeySets() {
    byte[] a = TestKeys.random(4, 3000);
    byte[] b = TestKeys.random(5, 3000);
    BbfGeometry g = new BbfGeometry(512, 8, 64);
    try (BlockedBloomFilter fa = filled(g, 42, a);
        BlockedBloomFilter fb = filled(g, 42, b);
        BlockedBloomFilter both = filled(g, 42, TestKeys.concat(a, b))) {
      fa.union(fb);
      assertEquals(6000, fa.count());
      assertEquals(-1, fa.bits().mismatch(both.bits()), "union must equal inserting both sets");
      for (int i = 0; i < 3000; i++) {
        assertTrue(fa.mightContain(b, i * 32));
      }
    }
  }

  @Test
  void unionRefusesDifferentGeometrySaltOrDerivation() {
    try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(64, 4, 32), 7);
        BlockedBloomFilter otherShape = BlockedBloomFilter.create(new BbfGeometry(64, 4, 64), 7);
        BlockedBloomFilter otherSize = BlockedBloomFilter.create(new BbfGeometry(128, 4, 32), 7);
        BlockedBloomFilter otherSalt = BlockedBloomFilter.create(new BbfGeometry(64, 4, 32), 8);
        BlockedBloomFilter unsalted = BlockedBloomFilter.create(new BbfGeometry(64, 4, 32), 0)) {
      for (BlockedBloomFilter other :
          new BlockedBloomFilter[] {otherShape, otherSize, otherSalt, unsalted}) {
        assertThrows(IllegalArgumentException.class, () -> f.union(other), other.toString());
      }
      assertEquals(2, f.derivationId());
      assertEquals(1, unsalted.derivationId());
    }
  }

  /**
   * The salt must change which keys collide: false positives under one salt are (almost all)
   * different keys from those under another. With a plain XOR of the salt they would be the same.
   */
  @Test
  void saltChangesWhichKeysAreFalsePositives() {
    byte[] members = TestKeys.random(6, 20_000);
    byte[] probes = TestKeys.random(7, 200_000);
    BbfGeometry g = new BbfGeometry(2048, 4, 32); // about 13 bits per key
    boolean[][] answers = new boolean[3][200_000];
    long[] salts = {0, 1, 2};
    for (int s = 0; s < 3; s++) {
      try (BlockedBloomFilter f = filled(g, salts[s], members)) {
        f.mightContainBatch(probes, 200_000, answers[s]);
      }
    }
    for (int s = 1; s < 3; s++) {
      int both = 0;
      int fps = 0;
      for (int i = 0; i < 200_000; i++) {
        fps += answers[0][i] ? 1 : 0;
        both += answers[0][i] && answers[s][i] ? 1 : 0;
      }
      assertTrue(fps > 500, "too few false positives to compare: " + fps);
      // Independent filters share a false positive with probability about p^2.
      assertTrue(both < fps / 10, "salt " + salts[s] + " shares " + both + " of " + fps);
    }
  }

  /**
   * mightContain checks [offset, offset + 32) with one compare and leaves offset >= 0 to the
   * kernels' own reads of byte {@code offset}: every kernel, shape and derivation must still refuse
   * every key that is not wholly inside the array, and answer for every one that is.
   */
  @Test
  void everyShapeAndKernelRefusesKeysOutsideTheArray() {
    byte[] keys = new byte[40];
    java.util.List<BbfGeometry> shapes = new java.util.ArrayList<>();
    for (int wordBits : new int[] {32, 64}) {
      for (int k : new int[] {2, 4, 8, 16}) {
        if (BbfGeometry.isValidShape(k, wordBits)) {
          shapes.add(new BbfGeometry(16, k, wordBits));
        }
      }
    }
    for (BbfGeometry g : shapes) {
      for (BlockedBloomFilter.Kernel kernel : BlockedBloomFilter.Kernel.values()) {
        if (!BlockedBloomFilter.isKernelAvailable(kernel)) {
          continue;
        }
        for (long salt : new long[] {0, 42}) {
          try (BlockedBloomFilter f = BlockedBloomFilter.create(g, salt, kernel)) {
            for (int offset = -40; offset <= 40; offset++) {
              int at = offset;
              String where = g + " " + kernel + " salt " + salt + " offset " + offset;
              if (offset >= 0 && offset + 32 <= keys.length) {
                assertFalse(f.mightContain(keys, at), where);
              } else {
                assertThrows(
                    IndexOutOfBoundsException.class, () -> f.mightContain(keys, at), where);
              }
            }
            assertThrows(
                IndexOutOfBoundsException.class, () -> f.mightContain(keys, Integer.MAX_VALUE - 8));
          }
        }
      }
    }
  }

  @Test
  void argumentChecks() {
    try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(8, 4, 32), 0)) {
      byte[] key = new byte[32];
      assertThrows(IndexOutOfBoundsException.class, () -> f.add(key, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContain(new byte[31], 0));
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContain(key, -1));
      assertThrows(
          IndexOutOfBoundsException.class, () -> f.mightContainBatch(key, 2, new boolean[2]));
      assertThrows(
          IndexOutOfBoundsException.class,
          () -> f.mightContainBatch(new byte[64], 2, new boolean[1]));
      assertThrows(NullPointerException.class, () -> BlockedBloomFilter.create(null, 0));
    }
  }

  @Test
  void forKeysSizesForTheTarget() {
    try (BlockedBloomFilter f = BlockedBloomFilter.forKeys(100_000, 0.01, 0)) {
      assertEquals(BbfSizing.forTarget(100_000, 0.01), f.geometry());
      byte[] keys = TestKeys.random(8, 100_000);
      for (int i = 0; i < 100_000; i++) {
        f.add(keys, i * 32);
      }
      assertTrue(f.modelledFpr() <= 0.01);
    }
  }

  @Test
  void wrappedFiltersAreReadOnlyAndClosingReleasesMemory() {
    byte[] keys = TestKeys.random(9, 500);
    BbfGeometry g = new BbfGeometry(32, 8, 32);
    try (BlockedBloomFilter source = filled(g, 3, keys)) {
      Arena arena = Arena.ofShared();
      MemorySegment copy = arena.allocate(g.byteSize(), 64).copyFrom(source.bits());
      BlockedBloomFilter wrapped = BlockedBloomFilter.wrapReadOnly(g, 3, 500, copy, arena);
      assertTrue(wrapped.isReadOnly());
      assertEquals(500, wrapped.count());
      assertTrue(wrapped.mightContain(keys, 0));
      assertThrows(UnsupportedOperationException.class, () -> wrapped.add(keys, 0));
      assertThrows(UnsupportedOperationException.class, () -> wrapped.union(source));
      wrapped.close();
      wrapped.close(); // idempotent
      assertFalse(arena.scope().isAlive());
      assertThrows(IllegalStateException.class, () -> wrapped.mightContain(keys, 0));
      assertThrows(
          IllegalArgumentException.class,
          () ->
              BlockedBloomFilter.wrapReadOnly(g, 3, 1, MemorySegment.ofArray(new byte[10]), null));
      assertThrows(
          IllegalArgumentException.class,
          () -> BlockedBloomFilter.wrapReadOnly(g, 3, -1, source.bits(), null));
      assertThrows(
          IllegalArgumentException.class,
          () ->
              BlockedBloomFilter.wrapReadOnly(
                  new BbfGeometry(1, 2, 32),
                  0,
                  0,
                  Arena.global().allocate(72, 64).asSlice(8),
                  null));
    }
  }

  @Test
  void duplicatesAreCountedAndChangeNothing() {
    byte[] key = TestKeys.random(10, 1);
    try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(16, 16, 32), 0)) {
      f.add(key, 0);
      long ones = f.bitCount();
      f.add(key, 0);
      assertEquals(ones, f.bitCount());
      assertEquals(2, f.count());
      assertNotEquals(0, ones);
    }
  }
}
