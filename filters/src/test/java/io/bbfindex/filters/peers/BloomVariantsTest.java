package io.bbfindex.filters.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.filters.hash.HashTestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Layout and sizing of the three Bloom variants: where a key's bits go, and how k is chosen. */
class BloomVariantsTest {

  /**
   * OMBF's promise: every bit of a key lies in one 64-byte block, for every k (both lanes, both
   * hashes).
   */
  @ParameterizedTest(name = "k={0}")
  @ValueSource(ints = {1, 4, 7, 8, 14, 15, 21})
  void ombfPutsAllBitsOfAKeyInOneBlock(int k) {
    long seed = 0x0B_0000L + k;
    byte[] keys = HashTestKeys.random(seed, 200);
    for (int i = 0; i < 200; i++) {
      OneMemoryAccessBloomFilter filter = new OneMemoryAccessBloomFilter(64, k, 9);
      filter.add(keys, i * 32);
      int blocksTouched = 0;
      int bits = 0;
      for (long b = 0; b < 64; b++) {
        int inBlock = 0;
        for (long word : filter.copyOfBlock(b)) {
          inBlock += Long.bitCount(word);
        }
        blocksTouched += inBlock > 0 ? 1 : 0;
        bits += inBlock;
      }
      assertEquals(1, blocksTouched, "key " + i + HashTestKeys.seedNote(seed));
      assertTrue(bits >= 1 && bits <= k, bits + " bits for k=" + k);
      assertTrue(filter.mightContain(keys, i * 32));
    }
  }

  /** With many keys the positions cover the whole block evenly (no dead 9-bit field). */
  @Test
  void ombfPositionsCoverTheWholeBlock() {
    OneMemoryAccessBloomFilter filter = new OneMemoryAccessBloomFilter(1, 21, 0);
    byte[] keys = HashTestKeys.random(0x0B_1000L, 200);
    for (int i = 0; i < 200; i++) {
      filter.add(keys, i * 32);
    }
    // 4200 draws into 512 bits: every bit set with probability 1 - 2.7e-4.
    assertTrue(filter.fillRatio() > 0.995, "fill " + filter.fillRatio());
  }

  /** Two-bit: one probe touches one 32-bit word and sets one or two bits in it. */
  @Test
  void twoBitProbeSetsOneOrTwoBitsOfOneWord() {
    long seed = 0x2B_0000L;
    byte[] keys = HashTestKeys.random(seed, 2000);
    int oneBit = 0;
    for (int i = 0; i < 2000; i++) {
      TwoBitBloomFilter filter = new TwoBitBloomFilter(100, 1, 3);
      filter.add(keys, i * 32);
      int words = 0;
      int bits = 0;
      for (int word : filter.copyOfWords()) {
        words += word != 0 ? 1 : 0;
        bits += Integer.bitCount(word);
      }
      assertEquals(1, words, HashTestKeys.seedNote(seed));
      assertTrue(bits == 1 || bits == 2);
      oneBit += bits == 1 ? 1 : 0;
    }
    // The two 5-bit fields coincide 1 time in 32: 62.5 expected of 2000.
    assertTrue(oneBit > 30 && oneBit < 100, "coinciding positions: " + oneBit);
  }

  @Test
  void standardBloomSetsAtMostKBitsAKey() {
    StandardBloomFilter filter = new StandardBloomFilter(1 << 20, 11, 0);
    byte[] keys = HashTestKeys.random(0x5B_0000L, 1);
    filter.add(keys, 0);
    long set = Math.round(filter.fillRatio() * filter.bitSize());
    assertTrue(set >= 1 && set <= 11, "set bits " + set);
  }

  /**
   * Fill ratios follow the occupancy expectation (a check of hashing uniformity over the table).
   */
  @Test
  void fillRatiosMatchTheirExpectation() {
    int n = 100_000;
    long seed = 0xF111_0000L;
    byte[] keys = HashTestKeys.random(seed, n);
    StandardBloomFilter bloom = new StandardBloomFilter(800_000, 6, 0);
    OneMemoryAccessBloomFilter ombf = new OneMemoryAccessBloomFilter(1563, 6, 0);
    TwoBitBloomFilter twoBit = new TwoBitBloomFilter(25_000, 3, 0);
    for (int i = 0; i < n; i++) {
      bloom.add(keys, i * 32);
      ombf.add(keys, i * 32);
      twoBit.add(keys, i * 32);
    }
    assertEquals(-Math.expm1(-6.0 * n / 800_000), bloom.fillRatio(), 0.002);
    assertEquals(-Math.expm1(6.0 * n * Math.log1p(-1.0 / (1563 * 512))), ombf.fillRatio(), 0.002);
    double perProbe = 1 - (31.0 / 32) * (31.0 / 32);
    assertEquals(-Math.expm1(3.0 * n * Math.log1p(-perProbe / 25_000)), twoBit.fillRatio(), 0.002);
  }

  @Test
  void optimalKIsNearBitsPerKeyTimesLnTwoForTheStandardFilter() {
    assertEquals(7, StandardBloomFilter.optimalK(1000, 10_000));
    assertEquals(11, StandardBloomFilter.optimalK(1000, 16_000));
    assertEquals(3, StandardBloomFilter.optimalK(1000, 4_000));
    // Blocking costs accuracy at high k, so the OMBF's best k is lower.
    assertTrue(OneMemoryAccessBloomFilter.optimalK(100_000, 100_000 * 16 / 512) < 11);
  }

  @Test
  void badArgumentsAreRefusedWithTheirName() {
    assertMessage("k must be in [1, 64]: 0", () -> new StandardBloomFilter(100, 0, 0));
    assertMessage(
        "bitCount must be in [1, 137438952896]: 0", () -> new StandardBloomFilter(0, 3, 0));
    assertMessage("k must be in [1, 21]: 22", () -> new OneMemoryAccessBloomFilter(10, 22, 0));
    assertMessage("blocks must be positive: 0", () -> new OneMemoryAccessBloomFilter(0, 2, 0));
    assertMessage("k must be in [1, 16]: 17", () -> new TwoBitBloomFilter(10, 17, 0));
    assertMessage("wordCount must be in [1, 2147483639]: 0", () -> new TwoBitBloomFilter(0, 1, 0));
    byte[] shortArray = new byte[40];
    assertThrows(
        IndexOutOfBoundsException.class, () -> new TwoBitBloomFilter(8, 1, 0).add(shortArray, 9));
    assertThrows(
        IndexOutOfBoundsException.class,
        () -> new StandardBloomFilter(64, 1, 0).mightContain(shortArray, -1));
  }

  private static void assertMessage(String expected, Runnable construct) {
    try {
      construct.run();
      fail("no exception; expected " + expected);
    } catch (IllegalArgumentException e) {
      assertEquals(expected, e.getMessage());
    }
  }

  @Test
  void filtersWithDifferentSeedsDisagreeOnForeignKeys() {
    StandardBloomFilter a = new StandardBloomFilter(10_000, 3, 0);
    StandardBloomFilter b = new StandardBloomFilter(10_000, 3, 1000);
    byte[] keys = HashTestKeys.random(0x5EED_5EEDL, 3000);
    for (int i = 0; i < 1000; i++) {
      a.add(keys, i * 32);
      b.add(keys, i * 32);
    }
    int differ = 0;
    for (int i = 1000; i < 3000; i++) {
      differ += a.mightContain(keys, i * 32) != b.mightContain(keys, i * 32) ? 1 : 0;
    }
    assertFalse(differ == 0, "seeds must change the bit positions");
  }
}
