package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The position key: equal exactly for equal (file, dataPos), and its hash spreads the positions a
 * block index has (the same offsets in every file), where {@code Long.hashCode} gave {@code file ^
 * dataPos}.
 */
class PositionKeyTest {

  @Test
  void equalityIsFileAndPosition() {
    assertEquals(new PositionKey(3, 1000), new PositionKey(3, 1000));
    assertEquals(new PositionKey(3, 1000).hashCode(), new PositionKey(3, 1000).hashCode());
    assertNotEquals(new PositionKey(3, 1000), new PositionKey(1000, 3));
    assertNotEquals(new PositionKey(0, 1), new PositionKey(1, 0));
    // the pairs Long.hashCode (file ^ dataPos) mapped to one hash are distinct keys
    assertNotEquals(new PositionKey(1, 8), new PositionKey(0, 9));
    assertEquals(0, new PositionKey(2, 5).compareTo(new PositionKey(2, 5)));
    assertTrue(new PositionKey(2, 5).compareTo(new PositionKey(3, 0)) < 0);
    assertTrue(new PositionKey(2, 0xFFFF_FFFFL).compareTo(new PositionKey(3, 0)) < 0);
  }

  @Test
  void sameOffsetsInManyFilesSpreadOverHashMapsBuckets() {
    // the mainnet-geometry bench's datadir: 950,000 small blocks in 6,525 files of ~112 KB, so
    // file ^ dataPos stays below 2^17; with Long.hashCode its map used 114,628 bins, up to 24
    // keys each (treeified), 72% of the keys in bins of 8 or more
    int buckets = 1 << 21; // HashMap's table for 950,000 entries
    int[] key = new int[buckets];
    int[] asLong = new int[buckets];
    Random rnd = new Random(29);
    for (int file = 0; file < 6525; file++) {
      long pos = 8;
      for (int k = 0; k < 146; k++) {
        pos += 278 + rnd.nextInt(1000); // blocks of 278 bytes and more, as there
        int h = new PositionKey(file, pos).hashCode();
        key[(h ^ (h >>> 16)) & (buckets - 1)]++;
        int l = Long.hashCode(((long) file << 32) | pos);
        asLong[(l ^ (l >>> 16)) & (buckets - 1)]++;
      }
    }
    int maxKey = Arrays.stream(key).max().orElseThrow();
    int maxLong = Arrays.stream(asLong).max().orElseThrow();
    // random hashing of 952,650 keys into 2^21 bins: the fullest holds ~7
    assertTrue(maxKey <= 10, "fullest bin " + maxKey);
    assertTrue(maxLong >= 16, "Long.hashCode's fullest bin " + maxLong);
  }
}
