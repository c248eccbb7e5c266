package io.bbfindex.filters.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.filters.hash.HashTestKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CuckooFilterTest {

  /**
   * Identity of what the filter stores for a key: its fingerprint and its (unordered) bucket pair.
   */
  private record Signature(long fingerprint, int lowBucket, int highBucket) {
    static Signature of(CuckooFilter filter, byte[] keys, int offset) {
      long fp = filter.fingerprint(keys, offset);
      int i1 = filter.primaryBucket(keys, offset);
      int i2 = filter.alternateBucket(i1, fp);
      return new Signature(fp, Math.min(i1, i2), Math.max(i1, i2));
    }
  }

  /**
   * Insert, delete a random half, then for every key: present exactly when it was kept or when a
   * kept key has the same fingerprint and bucket pair. The table is small and the fingerprint
   * short, so both kinds of deleted key occur many times.
   */
  @ParameterizedTest(name = "buckets={0} f={1} keys={2}")
  @CsvSource({"1024, 8, 3600", "256, 4, 900", "4096, 12, 15000"})
  void deletedKeyIsAbsentUnlessAKeptKeySharesItsFingerprintAndBuckets(
      int buckets, int fingerprintBits, int keyCount) {
    long seed = 0xDE1E_0000L + buckets + fingerprintBits;
    CuckooFilter filter = new CuckooFilter(buckets, fingerprintBits, 500, 11);
    byte[] keys = HashTestKeys.random(seed, keyCount);
    List<Integer> accepted = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      if (filter.add(keys, i * 32)) {
        accepted.add(i);
      }
    }
    SplittableRandom random = new SplittableRandom(seed);
    Map<Signature, Integer> keptPerSignature = new HashMap<>();
    List<Integer> deleted = new ArrayList<>();
    List<Integer> kept = new ArrayList<>();
    for (int i : accepted) {
      if (random.nextBoolean()) {
        assertTrue(
            filter.remove(keys, i * 32), "remove of an added key" + HashTestKeys.seedNote(seed));
        deleted.add(i);
      } else {
        kept.add(i);
        keptPerSignature.merge(Signature.of(filter, keys, i * 32), 1, Integer::sum);
      }
    }
    assertEquals(kept.size(), filter.count(), HashTestKeys.seedNote(seed));
    for (int i : kept) {
      if (!filter.mightContain(keys, i * 32)) {
        fail("kept key " + i + " lost after deletions" + HashTestKeys.seedNote(seed));
      }
    }
    int stillPresent = 0;
    for (int i : deleted) {
      boolean shared = keptPerSignature.containsKey(Signature.of(filter, keys, i * 32));
      assertEquals(
          shared,
          filter.mightContain(keys, i * 32),
          "deleted key "
              + i
              + (shared ? " shares" : " shares no")
              + " fingerprint and buckets"
              + HashTestKeys.seedNote(seed));
      stillPresent += shared ? 1 : 0;
    }
    assertTrue(
        stillPresent > 0 && stillPresent < deleted.size(),
        "both cases must occur: "
            + stillPresent
            + " of "
            + deleted.size()
            + HashTestKeys.seedNote(seed));
  }

  /** A pair of keys built on purpose to collide: one deletion leaves the key "present". */
  @Test
  void aDeliberatelyCollidingPairKeepsTheDeletedKeyPresentUntilBothAreGone() {
    long seed = 0xC011_1DE0L;
    CuckooFilter filter = new CuckooFilter(1 << 12, 12, 500, 3);
    byte[][] pair = findCollidingPair(filter, seed);
    byte[] x = pair[0];
    byte[] y = pair[1];
    assertFalse(java.util.Arrays.equals(x, y));
    assertTrue(filter.add(x, 0));
    assertTrue(filter.add(y, 0));
    assertTrue(filter.remove(x, 0));
    assertTrue(filter.mightContain(x, 0), "y's identical fingerprint keeps x present");
    assertTrue(filter.mightContain(y, 0), "y must survive x's removal");
    assertTrue(filter.remove(y, 0));
    assertFalse(filter.mightContain(x, 0));
    assertFalse(filter.mightContain(y, 0));
    assertFalse(filter.remove(x, 0), "nothing left to remove");
    assertEquals(0, filter.count());
  }

  /** Without a collision a deleted key is gone at once. */
  @Test
  void aDeletedKeyWithoutACollidingKeyIsAbsent() {
    long seed = 0xC011_1DE1L;
    CuckooFilter filter = new CuckooFilter(1 << 12, 12, 500, 3);
    byte[] keys = HashTestKeys.random(seed, 2);
    assertTrue(filter.add(keys, 0));
    assertTrue(filter.add(keys, 32));
    assertTrue(filter.remove(keys, 0));
    assertFalse(filter.mightContain(keys, 0), HashTestKeys.seedNote(seed));
    assertTrue(filter.mightContain(keys, 32));
  }

  private static byte[][] findCollidingPair(CuckooFilter filter, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<Signature, byte[]> seen = new HashMap<>();
    for (int tries = 0; tries < 50_000_000; tries++) {
      byte[] key = new byte[32];
      random.nextBytes(key);
      byte[] earlier = seen.putIfAbsent(Signature.of(filter, key, 0), key);
      if (earlier != null) {
        return new byte[][] {earlier, key};
      }
    }
    throw new AssertionError("no colliding pair found" + HashTestKeys.seedNote(seed));
  }

  /**
   * Fill a small table until it refuses, and keep trying: every refused insert leaves the slots and
   * the count exactly as they were, and every accepted key is still found at the end.
   */
  @ParameterizedTest(name = "buckets={0} f={1} maxKicks={2}")
  @CsvSource({"256, 12, 500", "64, 8, 500", "1024, 16, 50", "16, 8, 0", "1, 8, 500"})
  void aFullTableRefusesInsertsAndLosesNothing(int buckets, int fingerprintBits, int maxKicks) {
    long seed = 0xF0_11L * buckets + fingerprintBits + maxKicks;
    CuckooFilter filter = new CuckooFilter(buckets, fingerprintBits, maxKicks, 5);
    int capacity = buckets * CuckooFilter.SLOTS_PER_BUCKET;
    byte[] keys = HashTestKeys.random(seed, 4 * capacity);
    List<Integer> accepted = new ArrayList<>();
    int refusals = 0;
    double loadAtFirstRefusal = -1;
    for (int i = 0; i < 4 * capacity && refusals < 200; i++) {
      PackedFingerprints before = filter.copyOfSlots();
      long countBefore = filter.count();
      if (filter.add(keys, i * 32)) {
        accepted.add(i);
      } else {
        if (refusals++ == 0) {
          loadAtFirstRefusal = filter.load();
        }
        assertTrue(
            filter.sameSlots(before),
            "refused insert " + i + " changed the table" + HashTestKeys.seedNote(seed));
        assertEquals(countBefore, filter.count(), HashTestKeys.seedNote(seed));
      }
    }
    assertTrue(refusals > 0, "the table never filled up" + HashTestKeys.seedNote(seed));
    System.out.printf(
        "cuckoo filter B=%d f=%d maxKicks=%d: first refusal at load %.3f, %d refusals,"
            + " final load %.3f%n",
        buckets, fingerprintBits, maxKicks, loadAtFirstRefusal, refusals, filter.load());
    assertEquals(accepted.size(), filter.count());
    for (int i : accepted) {
      if (!filter.mightContain(keys, i * 32)) {
        fail("accepted key " + i + " lost" + HashTestKeys.seedNote(seed));
      }
    }
    if (maxKicks == 500 && buckets >= 64) { // the paper's 95 % for b = 4 (a little less when tiny)
      assertTrue(loadAtFirstRefusal > 0.85, "first refusal at load " + loadAtFirstRefusal);
    }
  }

  /** Seed 001: one key fits 2b = 8 times; the ninth copy is refused without changing anything. */
  @Test
  void oneKeyFitsEightTimesAndTheNinthIsRefused() {
    CuckooFilter filter = new CuckooFilter(1 << 10, 16);
    byte[] key = HashTestKeys.random(0xD0B1L, 1);
    for (int copy = 1; copy <= 8; copy++) {
      assertTrue(filter.add(key, 0), "copy " + copy);
    }
    PackedFingerprints before = filter.copyOfSlots();
    assertFalse(filter.add(key, 0), "ninth copy");
    assertTrue(filter.sameSlots(before));
    assertEquals(8, filter.count());
    for (int copy = 1; copy <= 8; copy++) {
      assertTrue(filter.mightContain(key, 0));
      assertTrue(filter.remove(key, 0), "removal " + copy);
    }
    assertFalse(filter.mightContain(key, 0));
    assertFalse(filter.remove(key, 0));
  }

  /** The smallest power of two at which the keys fit at load <= 95 %. */
  @Test
  void forKeysSizesToTheTargetLoad() {
    // 10^6 / (4 * 0.95) = 263,158 buckets needed: 2^18 = 262,144 is just too few.
    assertEquals(1 << 19, CuckooFilter.forKeys(1_000_000, 12).bucketCount());
    assertEquals(1 << 18, CuckooFilter.bucketsFor(996_147)); // 0.95 * 4 * 2^18 = 996,147.2
    assertEquals(1 << 19, CuckooFilter.bucketsFor(996_148));
    assertEquals(1, CuckooFilter.bucketsFor(1));
    assertEquals(1, CuckooFilter.bucketsFor(3));
    assertEquals(2, CuckooFilter.bucketsFor(4));
  }

  @Test
  void rejectsBadArgumentsByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new CuckooFilter(1000, 8));
    assertEquals("bucketCount must be a power of two in [1, 2^30]: 1000", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new CuckooFilter(1024, 3));
    assertEquals("fingerprintBits must be in [4, 32]: 3", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new CuckooFilter(1024, 8, -1, 0));
    assertEquals("maxKicks must not be negative: -1", e.getMessage());
    assertThrows(
        IndexOutOfBoundsException.class, () -> new CuckooFilter(16, 8).add(new byte[40], 9));
  }
}
