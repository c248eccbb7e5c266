package io.bbfindex.filters.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.MembershipFilter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FilterTypeTest {

  private static boolean isBbf(FilterType type) {
    return type == FilterType.BBF_SIMD || type == FilterType.BBF_SCALAR;
  }

  private static byte[] keys(long seed, int count) {
    byte[] keys = new byte[32 * count];
    new SplittableRandom(seed).nextBytes(keys);
    return keys;
  }

  /** Space within rounding of what was asked, an empty filter says "no", a fresh model is 0. */
  @ParameterizedTest
  @EnumSource(FilterType.class)
  void createdFilterHasAboutTheAskedSpaceAndStartsEmpty(FilterType type) {
    MembershipFilter filter = type.create(100_000, 10);
    double bitsPerKey = filter.bitSize() / 100_000.0;
    // Whole blocks/words are exact here; a power-of-two cuckoo table rounds its fingerprint width;
    // a BBF has a power-of-two group count, the nearest in log scale: within a factor sqrt(2).
    if (isBbf(type)) {
      assertTrue(
          bitsPerKey >= 10 / Math.sqrt(2) && bitsPerKey <= 10 * Math.sqrt(2),
          type + ": " + bitsPerKey);
    } else {
      assertEquals(10, bitsPerKey, type == FilterType.CUCKOO ? 1.5 : 0.01, type.name());
    }
    assertEquals(0, filter.count());
    assertEquals(0.0, filter.modelledFpr(), 1e-12);
    byte[] probe = keys(type.ordinal(), 1000);
    for (int i = 0; i < 1000; i++) {
      assertFalse(filter.mightContain(probe, i * 32), type + " empty filter said maybe");
    }
  }

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void modelledFprGrowsWithTheKeyCount(FilterType type) {
    MembershipFilter filter = type.create(20_000, 8);
    byte[] keys = keys(17 + type.ordinal(), 20_000);
    double previous = 0;
    for (int i = 0; i < 20_000; i++) {
      assertTrue(filter.add(keys, i * 32));
      if (i % 5000 == 4999) {
        double model = filter.modelledFpr();
        assertTrue(model > previous, type + " model did not grow: " + model);
        previous = model;
      }
    }
    assertEquals(20_000, filter.count());
    assertTrue(previous > 0.001 && previous < 0.2, type + " model at 8 bits/key: " + previous);
  }

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void kVariantUsesTheGivenKOrSaysItHasNone(FilterType type) {
    if (!type.supportsK()) {
      assertThrows(UnsupportedOperationException.class, () -> type.create(1000, 8, 3));
      return;
    }
    // A BBF group has 2, 4, 8 or 16 words; the Bloom variants take any k.
    int k = isBbf(type) ? 4 : 3;
    MembershipFilter filter = type.create(1000, 8, k);
    assertTrue(filter.toString().contains("k=" + k), filter.toString());
    assertThrows(IllegalArgumentException.class, () -> type.create(1000, 8, 0));
  }

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void removeIsSupportedExactlyWhereAdvertised(FilterType type) {
    MembershipFilter filter = type.create(1000, 8);
    byte[] key = keys(99, 1);
    filter.add(key, 0);
    if (filter.supportsRemove()) {
      assertTrue(filter.remove(key, 0));
      assertEquals(0, filter.count());
    } else {
      assertThrows(UnsupportedOperationException.class, () -> filter.remove(key, 0));
    }
  }

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void badSizesAreRefusedWithTheirName(FilterType type) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> type.create(0, 8));
    assertTrue(e.getMessage().startsWith("expectedKeys must be positive: 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> type.create(10, Double.NaN));
    assertTrue(e.getMessage().startsWith("bitsPerKey must be positive: NaN"), e.getMessage());
  }

  @Test
  void onlyTheCuckooFilterRemoves() {
    for (FilterType type : FilterType.values()) {
      assertEquals(type == FilterType.CUCKOO, type.create(100, 8).supportsRemove(), type.name());
    }
  }
}
