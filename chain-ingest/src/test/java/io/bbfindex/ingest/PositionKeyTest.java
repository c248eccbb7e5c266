package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
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
    // the mainnet-geometry bench's datadir: 950,000 small blocks, ~146 per file at the same
    // offsets in each; with Long.hashCode its map had bins of up to 24 keys (treeified), 72% of
    // the keys in bins of 8 or more
    int buckets = 1 << 21; // HashMap's table for 950,000 entries
    int[] key = new int[buckets];
    int[] asLong = new int[buckets];
    for (int file = 0; file < 6500; file++) {
      for (int k = 0; k < 146; k++) {
        long pos = 8 + k * 888L;
        int h = new PositionKey(file, pos).hashCode();
        key[(h ^ (h >>> 16)) & (buckets - 1)]++;
        int l = Long.hashCode(((long) file << 32) | pos);
        asLong[(l ^ (l >>> 16)) & (buckets - 1)]++;
      }
    }
    int maxKey = Arrays.stream(key).max().orElseThrow();
    int maxLong = Arrays.stream(asLong).max().orElseThrow();
    // random hashing of 949,000 keys into 2^21 bins: the fullest holds ~7
    assertTrue(maxKey <= 10, "fullest bin " + maxKey);
    assertTrue(maxLong >= 16, "Long.hashCode's fullest bin " + maxLong);
  }
}
