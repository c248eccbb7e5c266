package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The side-by-side copy gives the plan's digest exactly when the hashes came sorted (equal
 * neighbours included), and nothing otherwise, so the plan then sorts as before.
 */
class ContiguousHashesTest {

  @Test
  void sortedHashesGiveThePlansDigest() {
    Random rnd = new Random(13);
    List<byte[]> hashes = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      byte[] h = new byte[32];
      rnd.nextBytes(h);
      hashes.add(h);
    }
    hashes.add(hashes.get(10).clone()); // a repeated hash: neighbours once sorted
    byte[] shared = hashes.get(20).clone(); // differs from another only in its last byte
    shared[31] ^= 1;
    hashes.add(shared);
    hashes.sort(Arrays::compareUnsigned);
    byte[][] sorted = hashes.toArray(new byte[0][]);
    for (int expected : new int[] {1, 16, sorted.length, 2 * sorted.length}) { // grows as needed
      ContiguousHashes flat = new ContiguousHashes(expected);
      for (byte[] h : sorted) {
        flat.add(h);
      }
      assertEquals(SourcePlan.digest(sorted), flat.digestIfSorted());
    }
    ContiguousHashes empty = new ContiguousHashes(0);
    assertEquals(SourcePlan.digest(new byte[0][]), empty.digestIfSorted());
  }

  @Test
  void unsortedOrOddLengthHashesGiveNothing() {
    Random rnd = new Random(17);
    byte[] a = new byte[32];
    byte[] b = new byte[32];
    rnd.nextBytes(a);
    rnd.nextBytes(b);
    byte[] low = Arrays.compareUnsigned(a, b) < 0 ? a : b;
    byte[] high = low == a ? b : a;
    ContiguousHashes unsorted = new ContiguousHashes(2);
    unsorted.add(high);
    unsorted.add(low);
    assertNull(unsorted.digestIfSorted());
    ContiguousHashes odd = new ContiguousHashes(3);
    odd.add(low);
    odd.add(new byte[33]);
    odd.add(high);
    assertNull(odd.digestIfSorted());
  }
}
