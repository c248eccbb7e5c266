package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockHashOrder} sorts exactly as {@link Arrays#compareUnsigned} does, including hashes
 * that share their first 43 bits (sorted by the rest) and duplicates, so the block digest stores
 * recorded before it stays the same.
 */
class BlockHashOrderTest {

  private static byte[][] hashes(long seed, int n) {
    Random r = new Random(seed);
    byte[][] out = new byte[n][32];
    for (byte[] h : out) {
      r.nextBytes(h);
    }
    return out;
  }

  private static byte[][] reference(byte[][] hashes) {
    byte[][] copy = hashes.clone();
    Arrays.sort(copy, Arrays::compareUnsigned);
    return copy;
  }

  @Test
  void randomHashesComeOutInTheComparatorsOrder() {
    byte[][] h = hashes(1, 200_000);
    assertArrayEquals(reference(h), BlockHashOrder.sort(h, h.length));
  }

  @Test
  void hashesSharingTheirPrefixAreOrderedByTheRest() {
    byte[][] h = hashes(2, 5_000);
    Random r = new Random(3);
    for (int i = 0; i < h.length; i += 3) { // runs of equal first 8 bytes, and of equal 43 bits
      byte[] donor = h[r.nextInt(h.length)];
      System.arraycopy(donor, 0, h[i], 0, i % 2 == 0 ? 8 : 5);
      if (i % 7 == 0) {
        h[i][0] = (byte) 0xFF; // high bit set: unsigned order, not signed
      }
    }
    h[10] = h[11].clone(); // a duplicate
    assertArrayEquals(reference(h), BlockHashOrder.sort(h, h.length));
  }

  @Test
  void hashesAlreadyInOrderComeBackAsACopyAndOneOutOfPlaceIsSorted() {
    byte[][] inOrder = reference(hashes(6, 50_000)); // as the node's index hands them out
    byte[][] sorted = BlockHashOrder.sort(inOrder, inOrder.length);
    assertArrayEquals(inOrder, sorted);
    assertNotSame(inOrder, sorted);
    byte[][] oneSwapped = inOrder.clone();
    oneSwapped[49_999] = inOrder[0];
    oneSwapped[0] = inOrder[49_999];
    assertArrayEquals(inOrder, BlockHashOrder.sort(oneSwapped, oneSwapped.length));
  }

  @Test
  void onlyTheFirstCountHashesAreSorted() {
    byte[][] h = hashes(4, 100);
    byte[][] firstHalf = Arrays.copyOf(h, 50);
    assertArrayEquals(reference(firstHalf), BlockHashOrder.sort(h, 50));
  }

  @Test
  void theDigestIsTheSha256OfTheSortedHashesAsBefore() throws Exception {
    byte[][] h = reference(hashes(5, 70_000)); // 2.2 MB: more than one of the digest's buffers
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    for (byte[] x : h) {
      md.update(x); // the definition stores recorded until now
    }
    String expected = HexFormat.of().formatHex(md.digest());
    assertEquals(expected, SourcePlan.digest(h));
    h[69_999] = h[69_998];
    assertNotEquals(expected, SourcePlan.digest(h));
  }
}
