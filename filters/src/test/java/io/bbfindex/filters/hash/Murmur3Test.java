package io.bbfindex.filters.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Murmur3Test {

  private static byte[] bytesOf(Murmur3.Hash128 h) {
    return ByteBuffer.allocate(16)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(h.h1())
        .putLong(h.h2())
        .array();
  }

  @Test
  void matchesGuavaOnEveryLengthAndTailAndSeed() {
    long seed = 0x5eed_0001L;
    SplittableRandom random = new SplittableRandom(seed);
    for (int round = 0; round < 20_000; round++) {
      int length = random.nextInt(0, 100); // every tail length 0..15, many times each
      int offset = random.nextInt(0, 8);
      int hashSeed = round % 3 == 0 ? random.nextInt() : random.nextInt(0, 1 << 20);
      byte[] data = new byte[offset + length + random.nextInt(0, 4)];
      random.nextBytes(data);
      HashCode expected = Hashing.murmur3_128(hashSeed).hashBytes(data, offset, length);
      Murmur3.Hash128 actual = Murmur3.hash128(data, offset, length, hashSeed);
      int r = round;
      assertArrayEquals(
          expected.asBytes(),
          bytesOf(actual),
          () ->
              "round "
                  + r
                  + " length "
                  + length
                  + " hashSeed "
                  + hashSeed
                  + HashTestKeys.seedNote(seed));
      assertEquals(expected.asLong(), actual.h1(), "h1 is Guava's asLong()");
    }
  }

  @Test
  void knownVectorOfTheQuickBrownFox() {
    byte[] fox = "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.US_ASCII);
    // Published MurmurHash3_x64_128 value for this string with seed 0 (also Guava's test vector).
    assertEquals(
        "6c1b07bc7bbc4be347939ac4a93c437a",
        HashCode.fromBytes(bytesOf(Murmur3.hash128(fox, 0, fox.length, 0))).toString());
  }

  @Test
  void keyShortcutsEqualTheGeneralHash() {
    long seed = 0x5eed_0002L;
    SplittableRandom random = new SplittableRandom(seed);
    byte[] keys = HashTestKeys.random(seed, 1000);
    for (int i = 0; i < 1000; i++) {
      int hashSeed = random.nextInt();
      int at = i * 32;
      Murmur3.Hash128 general = Murmur3.hash128(keys, at, 32, hashSeed);
      assertEquals(general, Murmur3.hashKey(keys, at, hashSeed), HashTestKeys.seedNote(seed));
      assertEquals(
          general,
          Murmur3.hashKey(
              Murmur3.keyWord(keys, at, 0),
              Murmur3.keyWord(keys, at, 1),
              Murmur3.keyWord(keys, at, 2),
              Murmur3.keyWord(keys, at, 3),
              hashSeed),
          HashTestKeys.seedNote(seed));
    }
  }

  @Test
  void refusesRangesOutsideTheArray() {
    byte[] data = new byte[40];
    assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hashKey(data, 9, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash128(data, -1, 4, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash128(data, 30, 11, 0));
  }
}
