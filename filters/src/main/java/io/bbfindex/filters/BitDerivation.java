package io.bbfindex.filters;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Turns a 32-byte key into the three 64-bit lanes that choose a key's group (L2) and in-word bits
 * (L0, L1). The exact layout, and why it is so, is the design note of {@link BlockedBloomFilter}.
 * It is fixed per derivation id, which every filter file stores: changing it would turn every
 * persisted filter into a source of false negatives, so golden-file tests pin it.
 */
final class BitDerivation {

  /** Derivation id of unsalted filters: the key's bytes are used as they are. */
  static final int UNSALTED = 1;

  /** Derivation id of salted filters: every lane goes through fmix64 with a salt-derived key. */
  static final int SALTED = 2;

  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private final boolean salted;
  private final long key0;
  private final long key1;
  private final long key2;

  BitDerivation(long salt) {
    this.salted = salt != 0;
    this.key0 = laneKey(salt, 0);
    this.key1 = laneKey(salt, 1);
    this.key2 = laneKey(salt, 2);
  }

  /** The derivation id a filter with this salt has: 1 when unsalted, 2 when salted. */
  static int idFor(long salt) {
    return salt == 0 ? UNSALTED : SALTED;
  }

  /**
   * The 8 key bytes at {@code offset}, little-endian: lane i of the unsalted derivation is {@code
   * rawLane(keys, keyOffset + 8 i)}. The one place key arrays are read as longs.
   */
  static long rawLane(byte[] keys, int offset) {
    return (long) LE_LONG.get(keys, offset);
  }

  /** Lane L0: positions of words 0..7. */
  long lane0(byte[] keys, int offset) {
    long raw = rawLane(keys, offset);
    return salted ? fmix64(raw ^ key0) : raw;
  }

  /** Lane L1: positions of words 8..15 (only read when k = 16). */
  long lane1(byte[] keys, int offset) {
    long raw = rawLane(keys, offset + 8);
    return salted ? fmix64(raw ^ key1) : raw;
  }

  /** Lane L2: the group bits in its low 32 bits (reduced to a group index by the filter). */
  long lane2(byte[] keys, int offset) {
    long raw = rawLane(keys, offset + 16);
    return salted ? fmix64(raw ^ key2) : raw;
  }

  static long laneKey(long salt, int lane) {
    return salt == 0 ? 0 : fmix64(salt + (lane + 1) * GOLDEN_GAMMA);
  }

  /** MurmurHash3's 64-bit finalizer: a bijection with full avalanche. */
  static long fmix64(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
