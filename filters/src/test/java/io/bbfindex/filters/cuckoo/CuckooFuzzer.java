package io.bbfindex.filters.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.hash.HashTestKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * Seeded random operation sequences against exact oracles. Everything (table shape, key universe,
 * operation mix) derives from the seed, so a failing seed replays alone: pin it as a row of {@link
 * RegressionTest}.
 */
final class CuckooFuzzer {

  private CuckooFuzzer() {}

  /**
   * Cuckoo filter against a multiset of (fingerprint, bucket pair) signatures, which decides {@code
   * mightContain} exactly: a key is reported iff a stored signature equals its own. Refused inserts
   * must leave the table bit-for-bit unchanged.
   */
  static void cuckooFilter(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int buckets = 1 << random.nextInt(0, 7);
    int fingerprintBits = new int[] {4, 6, 8, 12, 16}[random.nextInt(5)];
    int maxKicks = new int[] {0, 1, 5, 50, 500}[random.nextInt(5)];
    int universe = random.nextInt(1, 8 * buckets + 2);
    int operations = 4000;
    String context =
        "cuckoo filter B="
            + buckets
            + " f="
            + fingerprintBits
            + " maxKicks="
            + maxKicks
            + " universe="
            + universe
            + HashTestKeys.seedNote(seed);
    CuckooFilter filter = new CuckooFilter(buckets, fingerprintBits, maxKicks, (int) seed);
    byte[] keys = HashTestKeys.random(seed ^ 0x5A5A_5A5AL, universe);
    Map<List<Long>, Integer> stored = new HashMap<>();
    List<Integer> added = new ArrayList<>(); // one entry per accepted copy
    for (int op = 0; op < operations; op++) {
      String where = " op " + op + " " + context;
      int choice = random.nextInt(10);
      if (choice < 5) {
        int k = random.nextInt(universe);
        PackedFingerprints before = filter.copyOfSlots();
        if (filter.add(keys, k * 32)) {
          added.add(k);
          stored.merge(signature(filter, keys, k), 1, Integer::sum);
        } else {
          assertTrue(filter.sameSlots(before), "refused add changed the table" + where);
        }
      } else if (choice < 7 && !added.isEmpty()) {
        int k = added.remove(random.nextInt(added.size()));
        assertTrue(filter.remove(keys, k * 32), "remove of an added key failed" + where);
        stored.merge(signature(filter, keys, k), -1, (a, b) -> a + b == 0 ? null : a + b);
      } else {
        int k = random.nextInt(universe);
        assertEquals(
            stored.containsKey(signature(filter, keys, k)),
            filter.mightContain(keys, k * 32),
            "mightContain" + where);
      }
      assertEquals(added.size(), filter.count(), "count" + where);
    }
    for (int k : added) {
      assertTrue(filter.mightContain(keys, k * 32), "added key lost at the end " + context);
    }
  }

  private static List<Long> signature(CuckooFilter filter, byte[] keys, int k) {
    long fp = filter.fingerprint(keys, k * 32);
    int i1 = filter.primaryBucket(keys, k * 32);
    int i2 = filter.alternateBucket(i1, fp);
    return List.of(fp, (long) Math.min(i1, i2), (long) Math.max(i1, i2));
  }

  /**
   * Cuckoo hash table against {@link HashMap}, from tiny tables up, with a degenerate-ish universe.
   */
  static void cuckooHashTable(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int universe = random.nextInt(1, 3000);
    int initialCapacity = random.nextInt(0, 64);
    int operations = 6000;
    String context =
        "cuckoo hash table universe="
            + universe
            + " initialCapacity="
            + initialCapacity
            + HashTestKeys.seedNote(seed);
    CuckooHashTable table = new CuckooHashTable(initialCapacity, (int) seed);
    byte[] keys = HashTestKeys.random(seed ^ 0xA5A5_A5A5L, universe);
    Map<Integer, Long> reference = new HashMap<>();
    for (int op = 0; op < operations; op++) {
      String where = " op " + op + " " + context;
      int k = random.nextInt(universe);
      int choice = random.nextInt(10);
      if (choice < 6) {
        long value = random.nextLong();
        assertEquals(
            optional(reference.put(k, value)), table.put(keys, k * 32, value), "put" + where);
      } else if (choice < 8) {
        assertEquals(optional(reference.remove(k)), table.remove(keys, k * 32), "remove" + where);
      } else {
        assertEquals(optional(reference.get(k)), table.get(keys, k * 32), "get" + where);
      }
      assertEquals(reference.size(), table.size(), "size" + where);
    }
    for (Map.Entry<Integer, Long> e : reference.entrySet()) {
      assertEquals(OptionalLong.of(e.getValue()), table.get(keys, e.getKey() * 32), context);
    }
  }

  private static OptionalLong optional(Long value) {
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }
}
