package io.bbfindex.app.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The order in which a batch's "maybe"s are read: every marked key exactly once, no unmarked one,
 * in ascending unsigned byte order of the keys (LevelDB's bytewise order of Core's {@code 't' ||
 * txid} keys), whatever the request order.
 */
class MaybeOrderTest {

  @Test
  void everyMarkedKeyComesOnceInAscendingKeyOrder() {
    Random random = new Random(20_261_125L);
    int count = 10_000;
    byte[] keys = new byte[32 * count];
    random.nextBytes(keys);
    long[] maybe = new long[(count + 63) / 64];
    List<Integer> marked = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      if (random.nextInt(10) == 0 || i == count - 1) {
        maybe[i >>> 6] |= 1L << i;
        marked.add(i);
      }
    }

    long[] order = MaybeOrder.ascendingKeys(keys, maybe);

    assertEquals(marked.size(), order.length);
    int[] indexes = Arrays.stream(order).mapToInt(e -> MaybeOrder.index(e)).toArray();
    assertEquals(marked, Arrays.stream(indexes).sorted().boxed().toList(), "each marked key once");
    for (int k = 1; k < indexes.length; k++) {
      int a = indexes[k - 1];
      int b = indexes[k];
      // ordered by their first 39 bits, so certainly by their first 4 bytes
      int cmp = Arrays.compareUnsigned(keys, 32 * a, 32 * a + 4, keys, 32 * b, 32 * b + 4);
      assertTrue(cmp <= 0, "key of index " + a + " sorts before key of index " + b);
    }
  }

  @Test
  void keysWithTheHighBitSetSortAfterTheOthers() {
    byte[] keys = new byte[32 * 3];
    keys[0] = (byte) 0xFF; // key 0: 0xff..., the largest unsigned
    keys[32] = 0x01; // key 1
    keys[64] = (byte) 0x80; // key 2
    long[] order = MaybeOrder.ascendingKeys(keys, new long[] {0b111});
    assertEquals(
        List.of(1, 2, 0), Arrays.stream(order).mapToObj(e -> MaybeOrder.index(e)).toList());
  }

  @Test
  void nothingMarkedIsNothingToRead() {
    assertEquals(0, MaybeOrder.ascendingKeys(new byte[32 * 64], new long[1]).length);
  }
}
