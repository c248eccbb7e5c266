package io.bbfindex.filters.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CuckooFprModelTest {

  @Test
  void modelsAreAboutEightAlphaOverTwoToTheFAndTheSlotFormBoundsTheExactOne() {
    long buckets = 1 << 16;
    long n = (long) (0.95 * 4 * buckets);
    for (int f : new int[] {4, 8, 12, 16}) {
      double exact = CuckooFprModel.exact(n, buckets, f);
      double bound = CuckooFprModel.slotBound(0.95, 4, f);
      assertTrue(exact <= bound, f + ": " + exact + " > " + bound);
      assertEquals(-Math.expm1(-8 * 0.95 / ((1 << f) - 1)), exact, exact * 1e-4);
    }
    assertEquals(8 * 0.95 / 4095, CuckooFprModel.exact(n, buckets, 12), 1e-3 * 8 * 0.95 / 4095);
    // One bucket: the pair is that bucket, so every stored key with the same fingerprint matches.
    assertEquals(1.0 / 255, CuckooFprModel.exact(1, 1, 8), 1e-15);
  }
}
