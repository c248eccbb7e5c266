package io.bbfindex.filters.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.hash.HashTestKeys;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FprModelsTest {

  @Test
  void occupancyPassReducesToTheClosedFormsForOneAndTwoPositions() {
    for (long t : new long[] {0, 1, 5, 40, 300}) {
      assertEquals(1 - Math.pow(511.0 / 512, t), FprModels.occupancyPass(512, 1, t), 1e-12);
      double q = Math.pow(31.0 / 32, t);
      double twoBit = (1.0 / 32) * (1 - q) + (31.0 / 32) * (1 - 2 * q + Math.pow(30.0 / 32, t));
      assertEquals(twoBit, FprModels.occupancyPass(32, 2, t), 1e-12);
    }
  }

  /** The exact occupancy term against a direct simulation of balls in a small block. */
  @ParameterizedTest(name = "B={0} k={1} draws={2}")
  @CsvSource({"16, 3, 10", "32, 2, 16", "64, 8, 40", "512, 11, 350"})
  void occupancyPassMatchesSimulation(int blockBits, int k, int draws) {
    long seed = 0x0cc0_0000L + blockBits * 31L + k;
    SplittableRandom random = new SplittableRandom(seed);
    int trials = 200_000;
    int passes = 0;
    boolean[] set = new boolean[blockBits];
    for (int trial = 0; trial < trials; trial++) {
      java.util.Arrays.fill(set, false);
      for (int d = 0; d < draws; d++) {
        set[random.nextInt(blockBits)] = true;
      }
      boolean all = true;
      for (int i = 0; i < k && all; i++) {
        all = set[random.nextInt(blockBits)];
      }
      passes += all ? 1 : 0;
    }
    double p = FprModels.occupancyPass(blockBits, k, draws);
    double sd = Math.sqrt(trials * p * (1 - p));
    assertEquals(trials * p, passes, 4.5 * sd + 1, "model " + p + HashTestKeys.seedNote(seed));
  }

  @Test
  void blockedModelApproachesTheStandardOneForLargeBlocksAndIsWorseForSmall() {
    // One block holding everything is a standard Bloom filter of that size.
    double oneBlock = FprModels.blockedBloom(1000, 1, 8192, 6);
    assertEquals(FprModels.standardBloom(1000, 8192, 6), oneBlock, oneBlock * 0.01);
    // 512-bit blocks at 8 bits a key cost accuracy (the BBF paper's figure 3 trend).
    double blocked = FprModels.blockedBloom(100_000, 100_000 * 8 / 512, 512, 6);
    assertTrue(blocked > FprModels.standardBloom(100_000, 800_000, 6) * 1.05, "" + blocked);
  }

  @Test
  void binomialExpectationIsANormalisedMean() {
    assertEquals(1.0, FprModels.binomialExpectation(1_000_000, 1e-3, z -> 1.0), 1e-12);
    assertEquals(1000.0, FprModels.binomialExpectation(1_000_000, 1e-3, z -> z), 1e-6);
    assertEquals(2.5, FprModels.poissonExpectation(2.5, j -> j), 1e-9);
    assertEquals(0.0, FprModels.binomialExpectation(0, 0.5, z -> z), 0);
  }

  @Test
  void twoBitFromFillInvertsTheLoadModel() {
    // Fill after lambda probes per word, then the fill model must give back the load model's FPR.
    long words = 1 << 16;
    long n = 1 << 18;
    double perProbe = 1 - (31.0 / 32) * (31.0 / 32);
    double fill = -Math.expm1(-(double) n / words * perProbe);
    assertEquals(
        FprModels.twoBitBloom(n, words, 1),
        FprModels.twoBitBloomFromFill(fill, 1),
        1e-4 * FprModels.twoBitBloom(n, words, 1));
    assertEquals(1.0, FprModels.twoBitBloomFromFill(1.0, 3));
    assertThrows(IllegalArgumentException.class, () -> FprModels.twoBitBloomFromFill(1.5, 1));
  }
}
