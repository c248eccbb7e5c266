package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BbfSizingTest {

  /** Eq. 3 summed term by term over every z, with the pmf built by the plain recurrence. */
  private static double bruteForce(int n, double groups, int k, int lw) {
    double p = 1 / groups;
    double pmf = Math.pow(1 - p, n);
    double sum = 0;
    for (int z = 0; z <= n; z++) {
      if (z > 0) {
        pmf *= (double) (n - z + 1) / z * p / (1 - p);
      }
      sum += pmf * Math.pow(1 - Math.pow(1 - 1.0 / lw, z), k);
    }
    return sum;
  }

  @Test
  void modelMatchesTheDirectSumForSmallFilters() {
    for (int[] s : TestKeys.shapes()) {
      for (int n : new int[] {1, 10, 100, 500}) {
        for (double groups : new double[] {2, 8, 64, 781.25}) {
          double expected = bruteForce(n, groups, s[0], s[1]);
          double actual = BbfSizing.modelFpr(n, groups, s[0], s[1]);
          assertEquals(expected, actual, expected * 1e-9 + 1e-300, n + " keys, r=" + groups);
        }
      }
    }
  }

  @Test
  void edgeCases() {
    assertEquals(0, BbfSizing.modelFpr(0, new BbfGeometry(8, 4, 32)));
    // r = 1: every key lands in the one group
    double oneGroup = Math.pow(1 - Math.pow(1 - 1.0 / 64, 10), 8);
    assertEquals(oneGroup, BbfSizing.modelFpr(10, new BbfGeometry(1, 8, 64)), 1e-15);
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.modelFpr(-1, 8, 4, 32));
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.modelFpr(1, 0.5, 4, 32));
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.modelFpr(1, 8, 3, 32));
  }

  /** Section 2.1 of the paper: n = 10^4, k = 4, m = 100,000 bits. */
  @Test
  void reproducesThePapersNumbers() {
    double fpr32 = BbfSizing.modelFpr(10_000, 100_000.0 / (4 * 32), 4, 32);
    double fpr64 = BbfSizing.modelFpr(10_000, 100_000.0 / (4 * 64), 4, 64);
    assertEquals(0.0156, fpr32, 0.00005);
    assertEquals(0.0137, fpr64, 0.00005);
    // The paper rounds the FPRs to 3 significant digits before sizing the Bloom filter, hence
    // tolerances of 0.1 % of the bits and 0.1 percentage points.
    assertEquals(86_650, BbfSizing.bloomBitsFor(10_000, fpr32), 87);
    assertEquals(89_299, BbfSizing.bloomBitsFor(10_000, fpr64), 90);
    assertEquals(89_299, BbfSizing.bloomBitsFor(10_000, 0.0137), 2);
    assertEquals(0.1540, BbfSizing.extraBitsVsBloom(10_000, 100_000.0 / 128, 4, 32), 0.001);
    assertEquals(0.1198, BbfSizing.extraBitsVsBloom(10_000, 100_000.0 / 256, 4, 64), 0.001);
    System.out.printf(
        "paper check: FPR lw=32 %.5f (paper 0.0156), lw=64 %.5f (paper 0.0137); extra bits vs"
            + " BF %.2f%% (paper 15.40%%), %.2f%% (paper 11.98%%)%n",
        fpr32,
        fpr64,
        100 * BbfSizing.extraBitsVsBloom(10_000, 100_000.0 / 128, 4, 32),
        100 * BbfSizing.extraBitsVsBloom(10_000, 100_000.0 / 256, 4, 64));
  }

  @Test
  void bloomFormulas() {
    assertEquals(
        Math.pow(1 - Math.exp(-4.0 * 1000 / 10_000), 4),
        BbfSizing.bloomFpr(1000, 10_000, 4),
        1e-15);
    long m = BbfSizing.bloomBitsFor(1000, 0.01, 7);
    assertTrue(BbfSizing.bloomFpr(1000, m, 7) <= 0.01);
    assertTrue(BbfSizing.bloomFpr(1000, m - 1, 7) > 0.01);
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.bloomFpr(1, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.bloomBitsFor(1, 1.0));
  }

  @Test
  void largeFiltersAreComputedWithoutVisitingEveryZ() {
    // These would take minutes with a term per z; the walk visits only the mass around the mean.
    double dense = BbfSizing.modelFpr(2_000_000_000L, new BbfGeometry(1L << 31, 8, 64));
    double coarse = BbfSizing.modelFpr(2_000_000_000L, new BbfGeometry(2, 8, 64));
    double max = BbfSizing.modelFpr(2_000_000_000L, new BbfGeometry(1L << 32, 16, 32));
    assertTrue(dense > 0 && dense < 1e-6, "dense " + dense);
    assertEquals(1.0, coarse, 1e-12);
    assertTrue(max > 0 && max < dense, "max " + max);
    // Absurd key counts (a corrupt or hostile header) must not make the model slow: found by the
    // loader fuzzer, where keyCount = 2^62 in an 8-group filter walked for minutes.
    assertEquals(1.0, BbfSizing.modelFpr(Long.MAX_VALUE, new BbfGeometry(2, 8, 64)));
    assertEquals(1.0, BbfSizing.modelFpr(1L << 62, new BbfGeometry(8, 2, 32)));
    assertEquals(1.0, BbfSizing.modelFpr(Long.MAX_VALUE, new BbfGeometry(1L << 32, 16, 32)));
    double justBelow = BbfSizing.modelFpr(6000L << 20, new BbfGeometry(1 << 20, 2, 64));
    assertTrue(justBelow > 0.999_999 && justBelow <= 1, "6000 keys per group: " + justBelow);
    // Monotone in r.
    double previous = 1;
    for (int log = 0; log <= 32; log += 4) {
      double fpr = BbfSizing.modelFpr(1_400_000_000L, new BbfGeometry(1L << log, 4, 64));
      assertTrue(fpr <= previous, "not monotone at r=2^" + log);
      previous = fpr;
    }
  }

  /**
   * No power-of-two rounding: the geometry chosen exceeds the bits eq. 3 needs (the real-valued
   * optimum over every shape) by less than one group of 512 bits, so by at most 1.05x from 10,000
   * keys on and under 0.1 % from 250,000. At mainnet's 1.4 billion txids and 1 % that is 10.10 bits
   * (1.26 bytes) a txid.
   */
  @Test
  void forTargetCostsAtMostFivePercentOverEquationThree() {
    for (long n : new long[] {100, 10_000, 250_000, 27_000_001, 1_400_000_000L}) {
      for (double target : new double[] {0.1, 0.01, 0.001}) {
        BbfGeometry g = BbfSizing.forTarget(n, target);
        double needed = BbfSizing.bitsNeeded(n, target);
        double ratio = g.bitSize() / needed;
        String what = g + " vs " + needed + " bits: " + ratio;
        assertTrue(ratio >= 1 - 1e-6 && g.bitSize() < needed + 512, what);
        if (n >= 10_000) {
          assertTrue(ratio <= 1.05, what);
        }
        if (n >= 250_000) {
          assertTrue(ratio < 1.001, what);
        }
      }
    }
    BbfGeometry mainnet = BbfSizing.forTarget(1_400_000_000L, 0.01);
    assertEquals(10.10, (double) mainnet.bitSize() / 1_400_000_000L, 0.01);
    assertTrue(Long.bitCount(mainnet.groups()) > 1, "not a power of two: " + mainnet);
  }

  @Test
  void forTargetPicksTheSmallestGeometryMeetingTheTarget() {
    for (long n : new long[] {1, 1000, 250_000, 50_000_000}) {
      for (double target : new double[] {0.1, 0.01, 0.001}) {
        BbfGeometry g = BbfSizing.forTarget(n, target);
        assertTrue(BbfSizing.modelFpr(n, g) <= target, g + " misses " + target);
        long smallestWide = Long.MAX_VALUE;
        for (int[] s : TestKeys.shapes()) {
          BbfGeometry other = BbfSizing.forTarget(n, target, s[0], s[1]);
          assertTrue(BbfSizing.modelFpr(n, other) <= target);
          if (other.groups() > 1) {
            BbfGeometry oneLess = new BbfGeometry(other.groups() - 1, s[0], s[1]);
            assertTrue(BbfSizing.modelFpr(n, oneLess) > target, oneLess + " would have done");
          }
          assertTrue(g.bitSize() <= other.bitSize(), g + " is bigger than " + other);
          if (s[1] == 64) {
            smallestWide = Math.min(smallestWide, other.bitSize());
          }
        }
        if (g.wordBits() == 32) {
          assertTrue(smallestWide > g.bitSize(), "ties must prefer lw = 64: " + g);
        }
      }
    }
    BbfGeometry typical = BbfSizing.forTarget(250_000, 0.01);
    System.out.println(
        "forTarget(250000, 1%) = "
            + typical
            + ", bits/key "
            + (double) typical.bitSize() / 250_000
            + ", extra vs best BF "
            + String.format("%.1f%%", 100 * BbfSizing.extraBitsVsBloom(250_000, typical)));
  }

  @Test
  void forTargetRefusesImpossibleOrInvalidTargets() {
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.forTarget(10, 0));
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.forTarget(10, 1));
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.forTarget(10, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> BbfSizing.forTarget(-1, 0.1));
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BbfSizing.forTarget(Long.MAX_VALUE / 2, 1e-12, 2, 32));
    assertTrue(e.getMessage().contains("no BBF"), e.getMessage());
  }
}
