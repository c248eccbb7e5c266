package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.catalog.FilterType;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both batch forms ({@code boolean[]} and {@code long[]} bitmap) give exactly the single-key
 * answers, for every structure and for counts around the bitmap's word boundaries; bad arguments
 * throw before anything is written.
 */
class BatchFormsTest {

  private static final long UNTOUCHED = 0x5A5A_5A5A_5A5A_5A5AL;
  private static final int[] COUNTS = {0, 1, 63, 64, 65, 127, 128, 129, 1000};

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void bothFormsGiveTheSingleKeyAnswers(FilterType type) throws Exception {
    long seed = 0xBA7C_0000L + type.ordinal();
    // About 4 bits a key: foreign keys hit often, so both answers occur among the probes.
    MembershipFilter f = type.create(2_000, 4);
    try {
      byte[] members = TestKeys.random(seed, 2_000);
      for (int i = 0; i < 2_000; i++) {
        f.add(members, i * 32);
      }
      byte[] probes =
          TestKeys.concat(Arrays.copyOf(members, 500 * 32), TestKeys.random(seed + 1, 500));
      int trues = 0;
      for (int count : COUNTS) {
        boolean[] single = new boolean[count];
        int expectedHits = 0;
        for (int i = 0; i < count; i++) {
          single[i] = f.mightContain(probes, i * 32);
          expectedHits += single[i] ? 1 : 0;
        }
        int words = MembershipFilter.bitmapWords(count);
        long[] maybe = new long[words + 1];
        Arrays.fill(maybe, UNTOUCHED);
        assertEquals(
            expectedHits, f.mightContainBatch(probes, count, maybe), type + " count " + count);
        for (int i = 0; i < count; i++) {
          assertEquals(
              single[i], (maybe[i >>> 6] >>> i & 1) == 1, type + " key " + i + " of " + count);
        }
        if (count % 64 != 0) {
          assertEquals(0, maybe[words - 1] >>> (count % 64), type + ": bits past the count");
        }
        assertEquals(UNTOUCHED, maybe[words], type + ": the word after the bitmap");

        boolean[] out = new boolean[count];
        f.mightContainBatch(probes, count, out);
        assertArrayEquals(single, out, type + " boolean form, count " + count);
        trues = expectedHits;
      }
      assertTrue(
          trues > 500 && trues < 1_000, type + ": both answers among the 1,000 probes: " + trues);
    } finally {
      if (f instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void badArgumentsThrowAndWriteNothing(FilterType type) throws Exception {
    MembershipFilter f = type.create(100, 10);
    try {
      byte[] keys = TestKeys.random(7, 70);
      long[] oneWord = {UNTOUCHED};
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContainBatch(keys, 65, oneWord));
      long[] twoWords = {UNTOUCHED, UNTOUCHED};
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContainBatch(keys, 71, twoWords));
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContainBatch(keys, -1, twoWords));
      assertArrayEquals(new long[] {UNTOUCHED}, oneWord);
      assertArrayEquals(new long[] {UNTOUCHED, UNTOUCHED}, twoWords);

      boolean[] out = new boolean[70];
      Arrays.fill(out, true);
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContainBatch(keys, 71, out));
      assertThrows(
          IndexOutOfBoundsException.class, () -> f.mightContainBatch(keys, 70, new boolean[69]));
      boolean[] allTrue = new boolean[70];
      Arrays.fill(allTrue, true);
      assertArrayEquals(allTrue, out, type + ": a refused batch wrote verdicts");
    } finally {
      if (f instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }
}
