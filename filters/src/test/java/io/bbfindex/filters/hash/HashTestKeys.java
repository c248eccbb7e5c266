package io.bbfindex.filters.hash;

import java.util.SplittableRandom;

/** Seeded random 32-byte keys, as flat arrays of {@code 32 * count} bytes. */
public final class HashTestKeys {

  public static final int KEY = 32;

  private HashTestKeys() {}

  /**
   * {@code count} random keys from {@code seed}; distinct seeds give disjoint sets (w.p. 1 -
   * 2^-200).
   */
  public static byte[] random(long seed, int count) {
    byte[] keys = new byte[KEY * count];
    new SplittableRandom(seed).nextBytes(keys);
    return keys;
  }

  /** A copy of key {@code i} of {@code keys}. */
  public static byte[] key(byte[] keys, int i) {
    byte[] key = new byte[KEY];
    System.arraycopy(keys, i * KEY, key, 0, KEY);
    return key;
  }

  public static String seedNote(long seed) {
    return " [seed=0x" + Long.toHexString(seed) + "]";
  }
}
