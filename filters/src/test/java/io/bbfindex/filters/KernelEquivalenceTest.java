package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bbfindex.filters.BlockedBloomFilter.Kernel;
import org.junit.jupiter.api.Test;

/**
 * Property tests: the scalar and vector kernels build bit-identical arrays and give identical
 * answers over every geometry (format v2 with power-of-two and other group counts, and v1), random
 * and adversarial keys, salted and unsalted; batch answers equal single-key answers. Run twice by
 * Maven: with the vector module, and without it ({@code -Dbbf.expectScalar=true}), where the scalar
 * fallback must have been chosen.
 */
class KernelEquivalenceTest {

  private static final boolean EXPECT_SCALAR = Boolean.getBoolean("bbf.expectScalar");
  private static final long[] SALTS = {0, 0x5EED5EED5EED5EEDL, 1};

  /** Group counts of format v2 geometries: powers of two and not (3, 7, 1000, 4099). */
  private static final long[] GROUPS = {1, 2, 3, 4, 7, 64, 1000, 4096, 4099};

  /** Group counts of format v1 (mask) geometries, which must be powers of two. */
  private static final long[] V1_GROUPS = {1, 2, 64, 4096};

  /** Every geometry of {@code shape} the property test covers, v2 then v1. */
  private static java.util.List<BbfGeometry> geometries(int[] shape) {
    java.util.List<BbfGeometry> out = new java.util.ArrayList<>();
    for (long groups : GROUPS) {
      out.add(new BbfGeometry(groups, shape[0], shape[1]));
    }
    for (long groups : V1_GROUPS) {
      out.add(BbfGeometry.v1(groups, shape[0], shape[1]));
    }
    return out;
  }

  @Test
  void theExpectedKernelWasChosen() {
    if (EXPECT_SCALAR) {
      assertEquals(Kernel.SCALAR, BlockedBloomFilter.bestKernel());
      assertFalse(BlockedBloomFilter.isKernelAvailable(Kernel.VECTOR));
      var e =
          assertThrows(
              UnsupportedOperationException.class,
              () -> BlockedBloomFilter.create(new BbfGeometry(4, 4, 64), 0, Kernel.VECTOR));
      assertTrue(e.getMessage().contains("jdk.incubator.vector"), e.getMessage());
      try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(4, 4, 64), 0)) {
        assertEquals(Kernel.SCALAR, f.kernel());
      }
    } else {
      assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent());
      assertEquals(Kernel.VECTOR, BlockedBloomFilter.bestKernel());
      try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(4, 4, 64), 0)) {
        assertEquals(Kernel.VECTOR, f.kernel());
      }
    }
    assertTrue(BlockedBloomFilter.isKernelAvailable(Kernel.SCALAR));
  }

  @Test
  void scalarAndVectorBuildIdenticalBitsAndAnswers() {
    assumeTrue(BlockedBloomFilter.isKernelAvailable(Kernel.VECTOR), "vector kernel unavailable");
    long seed = 20260101;
    byte[] inserted = TestKeys.concat(TestKeys.random(seed, 3000), TestKeys.adversarial(seed + 1));
    byte[] probes =
        TestKeys.concat(
            TestKeys.random(seed + 2, 3000),
            TestKeys.adversarial(seed + 3),
            TestKeys.blockHashLike(seed + 4, 500, 10),
            inserted);
    for (int[] shape : TestKeys.shapes()) {
      for (BbfGeometry g : geometries(shape)) {
        for (long salt : SALTS) {
          String where = g + " salt=" + salt + " seed=" + seed;
          try (BlockedBloomFilter scalar = BlockedBloomFilter.create(g, salt, Kernel.SCALAR);
              BlockedBloomFilter vector = BlockedBloomFilter.create(g, salt, Kernel.VECTOR)) {
            // Insert a prefix in steps so partially filled arrays are compared too.
            int n = TestKeys.count(inserted);
            for (int i = 0; i < n; i++) {
              scalar.add(inserted, i * 32);
              vector.add(inserted, i * 32);
              if (i == 0 || i == 7 || i == n / 2 || i == n - 1) {
                assertEquals(-1, scalar.bits().mismatch(vector.bits()), where + " after " + i);
              }
            }
            int probesCount = TestKeys.count(probes);
            boolean[] s = new boolean[probesCount];
            boolean[] v = new boolean[probesCount];
            for (int i = 0; i < probesCount; i++) {
              s[i] = scalar.mightContain(probes, i * 32);
              v[i] = vector.mightContain(probes, i * 32);
            }
            assertArrayEquals(s, v, where);
            boolean[] batch = new boolean[probesCount];
            vector.mightContainBatch(probes, probesCount, batch);
            assertArrayEquals(s, batch, where + " vector batch");
            scalar.mightContainBatch(probes, probesCount, batch);
            assertArrayEquals(s, batch, where + " scalar batch");
            // Cross-check: the vector kernel reading scalar-built bits and vice versa.
            BlockedBloomFilter vectorView = scalar.withKernel(Kernel.VECTOR);
            for (int i = 0; i < probesCount; i++) {
              assertEquals(s[i], vectorView.mightContain(probes, i * 32), where);
            }
          }
        }
      }
    }
  }

  @Test
  void batchEqualsSingleKeyAnswersForEveryBatchLength() {
    byte[] inserted = TestKeys.random(77, 2000);
    byte[] probes = TestKeys.concat(TestKeys.random(78, 1000), inserted);
    int total = TestKeys.count(probes);
    for (Kernel kernel : Kernel.values()) {
      if (!BlockedBloomFilter.isKernelAvailable(kernel)) {
        continue;
      }
      for (int[] shape : TestKeys.shapes()) {
        try (BlockedBloomFilter f =
            BlockedBloomFilter.create(new BbfGeometry(256, shape[0], shape[1]), 9, kernel)) {
          for (int i = 0; i < TestKeys.count(inserted); i++) {
            f.add(inserted, i * 32);
          }
          for (int len : new int[] {0, 1, 2, 31, 32, 33, 63, 64, 65, 100, total}) {
            boolean[] out = new boolean[len + 3];
            f.mightContainBatch(probes, len, out);
            for (int i = 0; i < len; i++) {
              assertEquals(f.mightContain(probes, i * 32), out[i], "key " + i + " of " + len);
            }
            for (int i = len; i < out.length; i++) {
              assertFalse(out[i], "batch wrote past count");
            }
          }
        }
      }
    }
  }
}
