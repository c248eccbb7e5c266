package io.bbfindex.filters.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * MurmurHash3 x64_128 (Austin Appleby, public domain), written out because the {@code filters}
 * module depends on the JDK only. The peers of the BBF hash their 32-byte keys with it, as the BBF
 * paper's baselines (BF, OMBF) do, and so do the cuckoo filter and hash table; the BBF itself uses
 * the raw key bits instead.
 *
 * <p>Output is bit-for-bit Guava's {@code Hashing.murmur3_128(seed)}: {@link Hash128#h1()} is the
 * first eight bytes of Guava's {@code HashCode} read little-endian (its {@code asLong()}), {@link
 * Hash128#h2()} the next eight. Like Guava, the {@code int} seed is sign-extended into both 64-bit
 * lanes; the reference C code zero-extends a {@code uint32_t}, so the two agree for seeds {@code >=
 * 0} only. {@code Murmur3Test} checks this class against Guava over random inputs.
 */
public final class Murmur3 {

  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private Murmur3() {}

  /** The 128-bit result as its two 64-bit lanes. */
  public record Hash128(long h1, long h2) {}

  /**
   * Hashes {@code data[offset .. offset + length)}.
   *
   * @throws IndexOutOfBoundsException if the range is not inside {@code data}
   */
  public static Hash128 hash128(byte[] data, int offset, int length, int seed) {
    Objects.checkFromIndexSize(offset, length, data.length);
    long h1 = seed;
    long h2 = seed;
    int blocks = length >>> 4;
    for (int i = 0; i < blocks; i++) {
      int at = offset + (i << 4);
      long k1 = (long) LONG_LE.get(data, at);
      long k2 = (long) LONG_LE.get(data, at + 8);
      h1 ^= mixK1(k1);
      h1 = Long.rotateLeft(h1, 27) + h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2(k2);
      h2 = Long.rotateLeft(h2, 31) + h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = offset + (blocks << 4);
    int rest = length & 15;
    if (rest > 8) {
      long k2 = 0;
      for (int i = rest - 1; i >= 8; i--) {
        k2 ^= (long) (data[tail + i] & 0xff) << ((i - 8) * 8);
      }
      h2 ^= mixK2(k2);
    }
    if (rest > 0) {
      long k1 = 0;
      for (int i = Math.min(rest, 8) - 1; i >= 0; i--) {
        k1 ^= (long) (data[tail + i] & 0xff) << (i * 8);
      }
      h1 ^= mixK1(k1);
    }
    return finish(h1, h2, length);
  }

  /**
   * Hashes the 32-byte key at {@code keys[offset .. offset + 32)}; the same value as {@code
   * hash128(keys, offset, 32, seed)}, unrolled for the one key size the project uses.
   *
   * @throws IndexOutOfBoundsException if the key is not inside {@code keys}
   */
  public static Hash128 hashKey(byte[] keys, int offset, int seed) {
    Objects.checkFromIndexSize(offset, 32, keys.length);
    return hashKey(
        (long) LONG_LE.get(keys, offset),
        (long) LONG_LE.get(keys, offset + 8),
        (long) LONG_LE.get(keys, offset + 16),
        (long) LONG_LE.get(keys, offset + 24),
        seed);
  }

  /**
   * Hashes a 32-byte key given as its four little-endian 64-bit words (bytes 0-7, 8-15, 16-23,
   * 24-31), so structures that store keys as {@code long}s can rehash them without copying bytes.
   */
  public static Hash128 hashKey(long w0, long w1, long w2, long w3, int seed) {
    long h1 = seed;
    long h2 = seed;
    h1 ^= mixK1(w0);
    h1 = Long.rotateLeft(h1, 27) + h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= mixK2(w1);
    h2 = Long.rotateLeft(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495ab5;
    h1 ^= mixK1(w2);
    h1 = Long.rotateLeft(h1, 27) + h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= mixK2(w3);
    h2 = Long.rotateLeft(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495ab5;
    return finish(h1, h2, 32);
  }

  /** Reads the little-endian 64-bit word {@code index} (0..3) of the key at {@code offset}. */
  public static long keyWord(byte[] keys, int offset, int index) {
    return (long) LONG_LE.get(keys, offset + 8 * index);
  }

  /**
   * Writes {@code value} little-endian as word {@code index} (0..3) of the key at {@code offset}.
   */
  public static void putKeyWord(byte[] keys, int offset, int index, long value) {
    LONG_LE.set(keys, offset + 8 * index, value);
  }

  /** Murmur3's 64-bit finaliser: a bijection that spreads every input bit over the output. */
  public static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  private static long mixK1(long k1) {
    k1 *= C1;
    k1 = Long.rotateLeft(k1, 31);
    return k1 * C2;
  }

  private static long mixK2(long k2) {
    k2 *= C2;
    k2 = Long.rotateLeft(k2, 33);
    return k2 * C1;
  }

  private static Hash128 finish(long h1, long h2, int length) {
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    return new Hash128(h1, h2);
  }
}
