package io.bbfindex.filters.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.filters.hash.HashTestKeys;
import io.bbfindex.filters.hash.Murmur3;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisabledIfSystemProperty(
    named = "bbf.expectScalar",
    matches = "true",
    disabledReason =
        "the peers never use the Vector API: the no-incubator re-run would repeat"
            + " this heavy suite for nothing")
class CuckooHashTableTest {

  private static OptionalLong optional(Long value) {
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }

  /**
   * Random put/get/remove sequences against {@link HashMap}: every answer must be the same, and at
   * the end the table must hold exactly the reference's entries. Keys come from a small universe so
   * that updates and removals of present keys are frequent; tables start tiny so they grow.
   */
  @ParameterizedTest(name = "seed={0} universe={1} ops={2} initialCapacity={3}")
  @CsvSource({
    "1, 1000, 200000, 0",
    "2, 50000, 300000, 16",
    "3, 200000, 300000, 1000",
    "4, 40, 20000, 0",
  })
  void behavesLikeAHashMap(long seed, int universe, int operations, int initialCapacity) {
    byte[] keys = HashTestKeys.random(0xAB0_0000L + seed, universe);
    CuckooHashTable table = new CuckooHashTable(initialCapacity, (int) seed);
    Map<Integer, Long> reference = new HashMap<>();
    SplittableRandom random = new SplittableRandom(seed);
    for (int op = 0; op < operations; op++) {
      int k = random.nextInt(universe);
      int at = k * 32;
      int choice = random.nextInt(10);
      String where = " at op " + op + " key " + k + HashTestKeys.seedNote(seed);
      if (choice < 5) {
        long value = random.nextLong();
        assertEquals(optional(reference.put(k, value)), table.put(keys, at, value), "put" + where);
      } else if (choice < 8) {
        assertEquals(optional(reference.get(k)), table.get(keys, at), "get" + where);
        assertEquals(reference.containsKey(k), table.containsKey(keys, at), "containsKey" + where);
      } else {
        assertEquals(optional(reference.remove(k)), table.remove(keys, at), "remove" + where);
      }
      if (table.size() != reference.size()) {
        fail("size " + table.size() + " != " + reference.size() + where);
      }
    }
    Map<ByteBuffer, Long> expected = new HashMap<>();
    reference.forEach((k, v) -> expected.put(ByteBuffer.wrap(HashTestKeys.key(keys, k)), v));
    Map<ByteBuffer, Long> actual = new HashMap<>();
    table.forEach(
        (key, value) ->
            assertTrue(
                actual.put(ByteBuffer.wrap(key), value) == null,
                "a key stored twice" + HashTestKeys.seedNote(seed)));
    assertEquals(expected, actual, "final contents" + HashTestKeys.seedNote(seed));
    System.out.printf(
        "cuckoo hash table seed %d: %d entries, %d buckets, load %.3f, %d grows,"
            + " %d failed rehashes%n",
        seed,
        table.size(),
        table.bucketCount(),
        table.loadFactor(),
        table.growCount(),
        table.failedRehashCount());
  }

  /** Seed 004's trap: putting a present key again must update in place, never add or grow. */
  @Test
  void reinsertingPresentKeysUpdatesWithoutGrowing() {
    long seed = 0xD0_0B1EL;
    CuckooHashTable table = new CuckooHashTable(256, 1);
    int keyCount = 240; // 94 % of 256 slots: the table is nearly full
    byte[] keys = HashTestKeys.random(seed, keyCount);
    for (int i = 0; i < keyCount; i++) {
      table.put(keys, i * 32, i);
    }
    int buckets = table.bucketCount();
    int grows = table.growCount();
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          for (int round = 1; round <= 1000; round++) {
            for (int i = 0; i < keyCount; i++) {
              long previous = round == 1 ? i : (round - 1) * 1000L + i;
              assertEquals(
                  OptionalLong.of(previous),
                  table.put(keys, i * 32, round * 1000L + i),
                  "round " + round + " key " + i + HashTestKeys.seedNote(seed));
            }
          }
        });
    assertEquals(keyCount, table.size());
    assertEquals(buckets, table.bucketCount(), "no growth from duplicates");
    assertEquals(grows, table.growCount());
    for (int i = 0; i < keyCount; i++) {
      assertEquals(OptionalLong.of(1_000_000L + i), table.get(keys, i * 32));
    }
  }

  /** Growth under heavy load terminates and keeps everything: 2^19 keys into a one-bucket table. */
  @Test
  void growthFromOneBucketUnderHeavyLoadTerminatesAndKeepsEveryKey() {
    long seed = 0x6E0_0001L;
    int keyCount = 1 << 19;
    byte[] keys = HashTestKeys.random(seed, keyCount);
    CuckooHashTable table = new CuckooHashTable(0, 5);
    assertEquals(1, table.bucketCount());
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          for (int i = 0; i < keyCount; i++) {
            assertEquals(OptionalLong.empty(), table.put(keys, i * 32, ~i));
          }
        });
    assertEquals(keyCount, table.size());
    for (int i = 0; i < keyCount; i++) {
      if (table.getOrDefault(keys, i * 32, 0) != ~i) {
        fail("key " + i + " lost after growth" + HashTestKeys.seedNote(seed));
      }
    }
    // Growth doubles only when the path search fails, so the table ends well loaded.
    assertTrue(table.loadFactor() > 0.45, "load " + table.loadFactor());
    System.out.printf(
        "cuckoo hash table grew %d times to %d buckets, load %.3f%n",
        table.growCount(), table.bucketCount(), table.loadFactor());
  }

  /**
   * A hash that sends every key to buckets 0 and 1 under every seed: 8 keys fit, the ninth cannot
   * fit in any table. The put must give up after bounded work (3 seeds at each size up to the
   * bound), say so, and leave the 8 keys in place.
   */
  @Test
  void aKeyThatNoTableCanPlaceFailsClearlyInsteadOfLooping() {
    CuckooHashTable.KeyHasher degenerate = (w0, w1, w2, w3, seed) -> new Murmur3.Hash128(0, 1);
    CuckooHashTable table = new CuckooHashTable(8, 0, degenerate, 1 << 10);
    byte[] keys = HashTestKeys.random(0xBAD_0001L, 9);
    for (int i = 0; i < 8; i++) {
      table.put(keys, i * 32, i);
    }
    IllegalStateException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10),
            () -> assertThrows(IllegalStateException.class, () -> table.put(keys, 8 * 32, 8)));
    assertTrue(e.getMessage().contains("1024 buckets"), e.getMessage());
    assertEquals(8, table.size());
    assertEquals(2, table.bucketCount(), "failed growth must keep the old table");
    assertFalse(table.containsKey(keys, 8 * 32));
    for (int i = 0; i < 8; i++) {
      assertEquals(OptionalLong.of(i), table.get(keys, i * 32));
    }
    assertEquals(3 * 9, table.failedRehashCount(), "3 seeds at each of 4, 8, ..., 1024 buckets");
  }

  /**
   * A hash that is degenerate under the first seed only: growing with the same seed would keep
   * failing, so the rehash must move on to a new seed and succeed.
   */
  @Test
  void aSeedUnderWhichKeysCollideIsReplacedOnRehash() {
    CuckooHashTable.KeyHasher badFirstSeed =
        (w0, w1, w2, w3, seed) ->
            seed == 7 ? new Murmur3.Hash128(0, 1) : Murmur3.hashKey(w0, w1, w2, w3, seed);
    CuckooHashTable table = new CuckooHashTable(8, 7, badFirstSeed, 1 << 10);
    byte[] keys = HashTestKeys.random(0xBAD_0002L, 1000);
    for (int i = 0; i < 1000; i++) {
      table.put(keys, i * 32, i);
    }
    assertEquals(1000, table.size());
    assertTrue(table.failedRehashCount() >= 1, "the first seed must have been dropped");
    for (int i = 0; i < 1000; i++) {
      assertEquals(OptionalLong.of(i), table.get(keys, i * 32));
    }
  }

  @Test
  void anAllZeroKeyIsAnOrdinaryKey() {
    CuckooHashTable table = new CuckooHashTable();
    byte[] zero = new byte[32];
    assertFalse(table.containsKey(zero, 0));
    assertEquals(OptionalLong.empty(), table.put(zero, 0, 42));
    assertEquals(OptionalLong.of(42), table.get(zero, 0));
    assertEquals(OptionalLong.of(42), table.remove(zero, 0));
    assertEquals(OptionalLong.empty(), table.remove(zero, 0));
    assertEquals(0, table.size());
  }

  @Test
  void rejectsBadArgumentsByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new CuckooHashTable(-1, 0));
    assertEquals("initialCapacity must be in [0, 4 * maxBuckets]: -1", e.getMessage());
    assertThrows(
        IndexOutOfBoundsException.class, () -> new CuckooHashTable().put(new byte[31], 0, 1));
    assertThrows(
        IndexOutOfBoundsException.class, () -> new CuckooHashTable().get(new byte[64], 33));
  }
}
