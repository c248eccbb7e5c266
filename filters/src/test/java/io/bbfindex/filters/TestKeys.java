package io.bbfindex.filters;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Seeded key sets for the filter tests: flat arrays of 32-byte keys. */
public final class TestKeys {

  public static final int KEY = MembershipFilter.KEY_BYTES;

  private TestKeys() {}

  /** Every valid (k, lw) shape, lw = 32 first. */
  public static List<int[]> shapes() {
    return List.of(
        new int[] {2, 32},
        new int[] {4, 32},
        new int[] {8, 32},
        new int[] {16, 32},
        new int[] {2, 64},
        new int[] {4, 64},
        new int[] {8, 64});
  }

  /** {@code count} uniformly random keys (like SHA-256d outputs) from {@code seed}. */
  public static byte[] random(long seed, int count) {
    byte[] keys = new byte[count * KEY];
    new SplittableRandom(seed).nextBytes(keys);
    return keys;
  }

  /**
   * Random keys shaped like block hashes in internal byte order: the last {@code zeroTail} bytes
   * are zero (proof of work).
   */
  public static byte[] blockHashLike(long seed, int count, int zeroTail) {
    byte[] keys = random(seed, count);
    for (int i = 0; i < count; i++) {
      java.util.Arrays.fill(keys, i * KEY + KEY - zeroTail, (i + 1) * KEY, (byte) 0);
    }
    return keys;
  }

  /**
   * Adversarial keys: all zero, all ones, alternating patterns, and keys that differ from those
   * (and from one random key) in exactly one bit, for every bit position.
   */
  public static byte[] adversarial(long seed) {
    List<byte[]> list = new ArrayList<>();
    byte[] zero = new byte[KEY];
    byte[] ones = new byte[KEY];
    java.util.Arrays.fill(ones, (byte) 0xFF);
    byte[] alt = new byte[KEY];
    java.util.Arrays.fill(alt, (byte) 0xAA);
    byte[] rnd = random(seed, 1);
    for (byte[] base : List.of(zero, ones, alt, rnd)) {
      list.add(base.clone());
      for (int bit = 0; bit < KEY * 8; bit++) {
        byte[] k = base.clone();
        k[bit >>> 3] ^= (byte) (1 << (bit & 7));
        list.add(k);
      }
    }
    byte[] out = new byte[list.size() * KEY];
    for (int i = 0; i < list.size(); i++) {
      System.arraycopy(list.get(i), 0, out, i * KEY, KEY);
    }
    return out;
  }

  /** Concatenation of key arrays. */
  public static byte[] concat(byte[]... parts) {
    int total = 0;
    for (byte[] p : parts) {
      total += p.length;
    }
    byte[] out = new byte[total];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /** Real-looking txids: SHA-256d of "label-i", for i in [0, count). */
  public static byte[] sha256d(String label, int count) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] out = new byte[count * KEY];
      for (int i = 0; i < count; i++) {
        byte[] once = sha.digest((label + "-" + i).getBytes(StandardCharsets.US_ASCII));
        System.arraycopy(sha.digest(once), 0, out, i * KEY, KEY);
      }
      return out;
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  public static int count(byte[] keys) {
    return keys.length / KEY;
  }
}
